-- A format_datetime pattern letter the local engine lacks names the function and the supported letters.
-- error: format_datetime\(\) format 'yyyy QQQ'.*common letters
SELECT format_datetime(block_time, 'yyyy QQQ') FROM dex.trades
