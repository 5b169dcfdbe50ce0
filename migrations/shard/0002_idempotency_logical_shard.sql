ALTER TABLE `idempotency_keys` ADD `logical_shard` integer;--> statement-breakpoint
CREATE INDEX `idempotency_keys_logical_idx` ON `idempotency_keys` (`logical_shard`);