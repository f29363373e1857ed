package dev.rota.activities;

import dev.rota.store.VmEventRepository;
import dev.rota.store.VmRepository;
import dev.rota.workflows.vm.VmActivities;
import io.micronaut.transaction.annotation.Transactional;
import jakarta.inject.Singleton;
import java.time.Clock;

@Singleton
public class VmActivitiesImpl implements VmActivities {
  private final VmRepository vms;
  private final VmEventRepository events;
  private final Clock clock;

  public VmActivitiesImpl(VmRepository vms, VmEventRepository events, Clock clock) {
    this.vms = vms;
    this.events = events;
    this.clock = clock;
  }

  @Override
  @Transactional
  public void recordStatus(String vmName, String status, String message, String eventType) {
    // A version conflict throws, and the activity's retry reads the row afresh.
    vms.findById(vmName).ifPresent(row -> vms.update(row.withStatus(status, message)));
    events.append(vmName, clock.instant(), eventType, message);
  }

  @Override
  @Transactional
  public void deleteVm(String vmName) {
    events.deleteAllOf(vmName);
    vms.deleteById(vmName);
  }
}
