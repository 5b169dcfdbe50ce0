-- Written by hand, kept out of the drizzle schema like shard_placements (docs/scaling.md "Portal routes").
--
-- portal_routes (read and written in the directory): which project holds each public name of a published portal,
-- `slug:<slug>` from the moment the slug is claimed, `domain:<domain>` once the domain is verified. The shards'
-- unique indexes on published_entries hold inside one database only; this primary key holds across all of them, so
-- a claim inserts its route here first and two claims racing on two shard databases cannot both win.
-- The shard write follows; a claim or release interrupted between the two is repaired by the scheduler
-- (src/services/portals/routes.ts reconcilePortalRoutes).
CREATE TABLE `portal_routes` (
	`name` text PRIMARY KEY NOT NULL,
	`project_id` text NOT NULL,
	`claimed_at` integer NOT NULL
);--> statement-breakpoint
CREATE INDEX `portal_routes_claimed_at` ON `portal_routes` (`claimed_at`);
