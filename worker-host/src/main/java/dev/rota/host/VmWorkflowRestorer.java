package dev.rota.host;

import dev.rota.api.control.ControlPlane;
import dev.rota.store.VmRepository;
import dev.rota.store.VmRow;
import dev.rota.store.VmSetRepository;
import dev.rota.store.VmSetRow;
import jakarta.inject.Singleton;
import java.util.List;

/**
 * At start, gives every VM set and every VM in the database its workflow back, joining any that is open. Dev mode's
 * embedded Temporal forgets its workflows on restart; this is what makes it lose nothing. A restored
 * workflow resumes from the stored status, and a task already running on an agent is adopted by the
 * scheduler (its id matches the stored generation), never started twice.
 */
@Singleton
public class VmWorkflowRestorer {
  private static final int PAGE = 500;

  private final VmRepository vms;
  private final VmSetRepository sets;
  private final ControlPlane control;

  public VmWorkflowRestorer(VmRepository vms, VmSetRepository sets, ControlPlane control) {
    this.vms = vms;
    this.sets = sets;
    this.control = control;
  }

  /** Returns how many VMs and sets it made sure of. */
  public int restore() {
    return restoreSets() + restoreVms();
  }

  private int restoreSets() {
    int count = 0;
    long after = 0;
    while (true) {
      List<VmSetRow> page = sets.page(after, PAGE);
      for (VmSetRow set : page) {
        control.ensureSet(set.name(), set.replicas());
        count++;
      }
      if (page.size() < PAGE) {
        return count;
      }
      after = page.get(page.size() - 1).seq();
    }
  }

  private int restoreVms() {
    int count = 0;
    long after = 0;
    while (true) {
      List<VmRow> page = vms.page(after, null, null, null, PAGE);
      for (VmRow vm : page) {
        control.ensureVm(vm);
        count++;
      }
      if (page.size() < PAGE) {
        return count;
      }
      after = page.get(page.size() - 1).seq();
    }
  }
}
