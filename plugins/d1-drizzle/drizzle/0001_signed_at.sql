ALTER TABLE `guestBook` ADD `signedAt` integer DEFAULT 0 NOT NULL;
