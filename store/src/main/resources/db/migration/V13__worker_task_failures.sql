-- Tasks that failed on a worker (its agent said so, or they vanished), for Scoot's flaky rule: enough of
-- them within the window make the worker flaky. Only ever inserted (by whichever observer saw the
-- failure) and pruned by age (by the term), so writers never wait on each other's row locks.
CREATE TABLE worker_task_failures (
    worker     VARCHAR(63) NOT NULL,
    failed_at  TIMESTAMP WITH TIME ZONE NOT NULL
);
CREATE INDEX worker_task_failures_by_time ON worker_task_failures (failed_at);
