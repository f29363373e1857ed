-- Every notification is a task event now: rows queued before task events, with no event, told a
-- workflow the VM's row, which its workflow now writes itself. Nothing is left that reads them.
DELETE FROM term_actions WHERE kind = 'notify' AND event IS NULL;
