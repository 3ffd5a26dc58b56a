-- 0007_scale: placeholder, filled by its issue. Hand-written SQL; statements separated by --> statement-breakpoint
SELECT 1;
