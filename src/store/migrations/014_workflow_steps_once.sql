-- Every HubSpot workflow step asked for gets a row here, not only the blocked ones, so a step runs once:
-- HubSpot sends a step again when our answer did not reach it (it retries for up to three days), and a
-- v2-signed request carries no timestamp that would make a captured copy expire. A request whose
-- callback_id has a row queues nothing and is answered from it.
--
-- `blocked`: the step was answered BLOCK and waits for its callback (the rows before this migration all
-- were). A step answered in the response is not blocked: `outcome` keeps the outcome it was answered with,
-- and `completed_at` is set at once, since no callback is owed.
ALTER TABLE workflow_callback ADD COLUMN blocked boolean NOT NULL DEFAULT true;
ALTER TABLE workflow_callback ADD COLUMN outcome jsonb;
