-- A row written by a transaction whose commit can go unanswered (the database or the network going away
-- while COMMIT is under way): found afterwards, it says that transaction committed; missing, that it did not.
CREATE TABLE commit_marks (
    id        VARCHAR(36) PRIMARY KEY,
    marked_at TIMESTAMP WITH TIME ZONE NOT NULL
);
CREATE INDEX commit_marks_by_time ON commit_marks (marked_at);
