-- The back-office's device list pages newest sign-in first by the key (created_at, token_hash).
-- Tokens are never deleted (an expired one stays listed as expired), so without an index
-- every page read and sorted the whole table: a deep page cost as much as reading them all.
-- Scanned backwards, this index gives each page its 100 rows directly.
CREATE INDEX device_tokens_created_at ON device_tokens (created_at, token_hash);
