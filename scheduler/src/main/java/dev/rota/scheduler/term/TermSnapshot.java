package dev.rota.scheduler.term;

import dev.rota.core.model.SchedulerProfile;
import dev.rota.core.scheduling.ObservedTask;
import dev.rota.core.scheduling.PlacedTask;
import dev.rota.core.scheduling.SetSnapshot;
import dev.rota.core.scheduling.VmSnapshot;
import dev.rota.core.scheduling.WorkerSnapshot;
import dev.rota.store.VmSchedulingRow;
import dev.rota.store.VmTaskRow;
import dev.rota.store.WorkerRow;
import java.util.List;
import java.util.Map;

/**
 * What a term plans from, every row as of one moment: the rows as read (the writes are conditional
 * on them) and the scheduling core's view of them.
 *
 * @param reported each worker whose agent answered since the term observed, with the tasks it
 *     reported
 * @param movable the VM sets whose replicas may be moved, by name
 * @param preemption whether a waiting VM may evict running VMs of lower priority to make room
 * @param quotas the namespaces' quotas that limit anything, by namespace
 */
public record TermSnapshot(
    Map<String, VmSchedulingRow> vmRows,
    List<VmSnapshot> vms,
    Map<String, WorkerRow> workerRows,
    List<WorkerSnapshot> workers,
    Map<PlacedTask, VmTaskRow> taskRows,
    Map<String, List<ObservedTask>> reported,
    SchedulerProfile profile,
    Map<String, SetSnapshot> movable,
    String pausedBecause,
    boolean preemption,
    Map<String, dev.rota.core.model.Quota> quotas) {}
