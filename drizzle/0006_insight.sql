-- 0006_insight: placeholder, filled by its issue. Hand-written SQL; statements separated by --> statement-breakpoint
SELECT 1;
