-- Reason: Chainlit's SQLAlchemyDataLayer persists the web chat's users, threads, steps, elements and
-- feedback. The tables live in their own schema `chainlit` (the UI connects with search_path=chainlit)
-- so their generic names never collide with the analysis tables in `godot_rag`.
CREATE SCHEMA IF NOT EXISTS chainlit;

CREATE TABLE IF NOT EXISTS chainlit.users (
    "id" UUID PRIMARY KEY,
    "identifier" TEXT NOT NULL UNIQUE,
    "metadata" JSONB NOT NULL,
    "createdAt" TEXT
);

CREATE TABLE IF NOT EXISTS chainlit.threads (
    "id" UUID PRIMARY KEY,
    "createdAt" TEXT,
    "name" TEXT,
    "userId" UUID,
    "userIdentifier" TEXT,
    "tags" TEXT[],
    "metadata" JSONB,
    FOREIGN KEY ("userId") REFERENCES chainlit.users("id") ON DELETE CASCADE
);
CREATE INDEX IF NOT EXISTS threads_user_idx ON chainlit.threads ("userId");

CREATE TABLE IF NOT EXISTS chainlit.steps (
    "id" UUID PRIMARY KEY,
    "name" TEXT NOT NULL,
    "type" TEXT NOT NULL,
    "threadId" UUID NOT NULL,
    "parentId" UUID,
    "streaming" BOOLEAN NOT NULL,
    "waitForAnswer" BOOLEAN,
    "isError" BOOLEAN,
    "metadata" JSONB,
    "tags" TEXT[],
    "input" TEXT,
    "output" TEXT,
    "createdAt" TEXT,
    "command" TEXT,
    "modes" JSONB,
    "start" TEXT,
    "end" TEXT,
    "generation" JSONB,
    "showInput" TEXT,
    "language" TEXT,
    "indent" INT,
    "defaultOpen" BOOLEAN,
    "autoCollapse" BOOLEAN,
    "icon" TEXT,
    FOREIGN KEY ("threadId") REFERENCES chainlit.threads("id") ON DELETE CASCADE
);
CREATE INDEX IF NOT EXISTS steps_thread_idx ON chainlit.steps ("threadId");

CREATE TABLE IF NOT EXISTS chainlit.elements (
    "id" UUID PRIMARY KEY,
    "threadId" UUID,
    "type" TEXT,
    "url" TEXT,
    "chainlitKey" TEXT,
    "name" TEXT NOT NULL,
    "display" TEXT,
    "objectKey" TEXT,
    "size" TEXT,
    "page" INT,
    "language" TEXT,
    "forId" UUID,
    "mime" TEXT,
    "props" JSONB,
    "autoPlay" BOOLEAN,
    "playerConfig" JSONB,
    FOREIGN KEY ("threadId") REFERENCES chainlit.threads("id") ON DELETE CASCADE
);

CREATE TABLE IF NOT EXISTS chainlit.feedbacks (
    "id" UUID PRIMARY KEY,
    "forId" UUID NOT NULL,
    "threadId" UUID NOT NULL,
    "value" INT NOT NULL,
    "comment" TEXT,
    FOREIGN KEY ("threadId") REFERENCES chainlit.threads("id") ON DELETE CASCADE
);
