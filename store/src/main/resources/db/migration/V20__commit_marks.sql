-- A row written by a transaction whose commit can go unanswered (the database or the network going away
-- while COMMIT is under way): found afterwards, it says that transaction committed; missing, that it did not.
-- A random number as the key and no other index: a mark is one insert into one tree, on every group commit.
CREATE TABLE commit_marks (
    id        BIGINT PRIMARY KEY,
    marked_at TIMESTAMP WITH TIME ZONE NOT NULL
);
