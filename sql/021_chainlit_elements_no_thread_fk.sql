-- Reason: Chainlit writes an uploaded file's element before the thread row exists (its writes are
-- queued per kind), so the foreign key on elements."threadId" rejected user uploads. Threads still
-- own their elements: Chainlit deletes them by "threadId" when a thread is deleted.
ALTER TABLE chainlit.elements DROP CONSTRAINT IF EXISTS "elements_threadId_fkey";
