-- Telling a VM's workflow an event first tells it the VM's earlier events still in the outbox (VmNotifier):
-- one lookup per notification, which a term that placed thousands of VMs makes thousands of times.
CREATE INDEX term_actions_by_vm ON term_actions (vm, id);
