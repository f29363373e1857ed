package dev.rota.api.vmsets;

import dev.rota.api.paging.Page;
import dev.rota.api.paging.PageRequest;
import dev.rota.api.problem.Problems;
import dev.rota.control.VmSetCommands;
import dev.rota.control.VmSetCommands.SetSpec;
import dev.rota.core.lifecycle.PoolStandby;
import dev.rota.store.VmRepository;
import dev.rota.store.VmSetRepository;
import dev.rota.store.VmSetRow;
import dev.rota.store.VmTemplate;
import io.micronaut.core.annotation.Nullable;
import jakarta.inject.Singleton;

/** Warm pools as the API takes and shows them; stored as sets that hand out their replicas. */
@Singleton
public class PoolService {
  private final VmSetRepository sets;
  private final VmRepository vms;
  private final VmSetCommands commands;
  private final VmSetService setService;

  public PoolService(
      VmSetRepository sets, VmRepository vms, VmSetCommands commands, VmSetService setService) {
    this.sets = sets;
    this.vms = vms;
    this.commands = commands;
    this.setService = setService;
  }

  public PoolView create(PoolRequest request, String by) {
    if (request.max() < request.minReady()) {
      throw Problems.badRequest(
          "max", "must be at least minReady (" + request.minReady() + "), got " + request.max());
    }
    VmTemplate template =
        setService.template(request.name(), request.namespace(), request.template());
    if (!template.volumes().isEmpty()) {
      throw Problems.badRequest("template.volumes", "cannot be given: a pool's VMs mount none");
    }
    boolean suspended = PoolStandby.of(request.standby()) == PoolStandby.SUSPENDED;
    if (suspended) {
      String cannot =
          dev.rota.core.lifecycle.SuspendRule.refusal(
              template.runtime(), template.image(), template.persistentDisk(), null);
      if (cannot != null) {
        throw Problems.badRequest(
            "standby", "suspended is for a template whose VMs can be suspended: " + cannot);
      }
    }
    return view(
        commands.createPool(
            request.name(),
            request.minReady(),
            request.max(),
            suspended ? PoolStandby.SUSPENDED.wireName() : null,
            new SetSpec(
                request.minReady(),
                template,
                VmSetService.spread(request.spread()).wireName(),
                request.maxUnavailable() == null ? 1 : request.maxUnavailable()),
            by));
  }

  public Page<PoolView> list(PageRequest page, @Nullable String namespace) {
    return page.page(
        VmSetService.pageOf(sets, true, page, namespace), s -> Long.toString(s.seq()), this::view);
  }

  public PoolView get(String name) {
    return view(find(name));
  }

  /**
   * Marks the pool for deletion: its workflow deletes the replicas not claimed, then the pool; the
   * VMs claimed from it are their users' and stay.
   */
  public PoolView delete(String name) {
    find(name);
    return view(commands.delete(name));
  }

  private VmSetRow find(String name) {
    return sets.findById(name)
        .filter(VmSetRow::isPool)
        .orElseThrow(() -> Problems.notFound("pool", name));
  }

  private PoolView view(VmSetRow row) {
    VmSetService.ReplicaCounts counts = setService.counts(row);
    long ready =
        row.keepsSuspended()
            ? counts.byStatus().getOrDefault(dev.rota.core.model.VmStatus.SUSPENDED.wireName(), 0L)
            : counts.ready();
    long claimed = vms.countClaimedFrom(row.name());
    String message = row.message();
    if (message == null && row.deleting()) {
      message = "being deleted; " + counts.total() + " replicas left";
    } else if (message == null && ready < row.replicas()) {
      message =
          ready
              + " of "
              + row.replicas()
              + " ready"
              + (claimed + row.replicas() > row.poolMax()
                  ? "; " + claimed + " claimed of at most " + row.poolMax() + " out at once"
                  : "");
    }
    return new PoolView(
        row.name(),
        row.replicas(),
        row.poolMax(),
        dev.rota.api.vms.VmSpecView.of(row.template()),
        VmSetService.shown(row.spread()),
        row.maxUnavailable(),
        PoolStandby.of(row.poolStandby()).wireName(),
        new PoolView.Status(ready, counts.total() - ready, claimed, message),
        row.createdAt());
  }
}
