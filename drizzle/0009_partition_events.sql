-- placeholder: replaced by the partitioning work (issue 6)
SELECT 1;
