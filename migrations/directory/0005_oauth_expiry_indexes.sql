CREATE INDEX `oauth_codes_expires_idx` ON `oauth_codes` (`expires_at`);--> statement-breakpoint
CREATE INDEX `oauth_refresh_expires_idx` ON `oauth_refresh_tokens` (`expires_at`);