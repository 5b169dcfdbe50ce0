-- Written by hand, kept out of the drizzle schema like portal_routes (docs/scaling.md "Reference ids").
--
-- reference_ids (read and written in the directory): which document holds each client-chosen reference id, per
-- kind ('clause' for clause_references, 'table' for table_references). A reference's `_id` is the client's and names
-- no shard; each shard's primary key holds inside one database only, this one across all of them, so a create claims
-- the id here beside its first read and two creates racing on two shard databases cannot both win. The document id
-- names the shard that holds the reference (it is issued beside its workspace). Ids are never given back on delete
-- (a deleted reference keeps its id). A create interrupted between the two databases is repaired by the scheduler
-- (src/services/references/referenceIds.ts reconcileReferenceIds).
CREATE TABLE `reference_ids` (
	`kind` text NOT NULL,
	`id` text NOT NULL,
	`document_id` text NOT NULL,
	`claimed_at` integer NOT NULL,
	PRIMARY KEY (`kind`, `id`)
);--> statement-breakpoint
CREATE INDEX `reference_ids_claimed_at` ON `reference_ids` (`claimed_at`);
