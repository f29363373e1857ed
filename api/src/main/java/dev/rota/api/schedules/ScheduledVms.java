package dev.rota.api.schedules;

import dev.rota.api.templates.TemplateDispatch;
import dev.rota.control.ScheduledVmMaker;
import dev.rota.workflows.schedule.ScheduledRun;
import io.micronaut.http.HttpStatus;
import io.micronaut.http.exceptions.HttpStatusException;
import jakarta.inject.Singleton;

/** A schedule's run's VM, made as a dispatch of the template makes one. */
@Singleton
public class ScheduledVms implements ScheduledVmMaker {
  private final TemplateDispatch dispatch;

  public ScheduledVms(TemplateDispatch dispatch) {
    this.dispatch = dispatch;
  }

  @Override
  public void make(ScheduledRun run, String vm) {
    try {
      // The VM's name as the key: a run tried again finds the VM it made.
      dispatch.dispatch(run.template(), vm, vm, run.parameters());
    } catch (HttpStatusException e) {
      if (e.getStatus() == HttpStatus.NOT_FOUND || e.getStatus() == HttpStatus.BAD_REQUEST) {
        // The template is gone, or no longer takes the schedule's parameters.
        throw new CannotMake(e.getMessage());
      }
      throw e;
    }
  }
}
