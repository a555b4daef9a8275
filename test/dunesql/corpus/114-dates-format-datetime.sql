-- Labels for charts: format_datetime (Joda) and date_format (MySQL patterns).
-- rows: 1
-- columns: joda varchar, mysql varchar
-- result: [["2024-03-05 14:07", "2024-03-05 14:07:09"]]
SELECT format_datetime(timestamp '2024-03-05 14:07:09', 'yyyy-MM-dd HH:mm') AS joda,
  date_format(timestamp '2024-03-05 14:07:09', '%Y-%m-%d %H:%i:%s') AS mysql
