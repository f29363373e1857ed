package dev.rota.workflows.schedule;

import java.util.Map;

/**
 * What a schedule makes each time: a VM of {@code template} with these parameters' values.
 *
 * @param schedule the schedule's name, the start of each VM's name
 * @param template the template's name
 * @param parameters values for the template's parameters, as JSON values
 */
public record ScheduledRun(String schedule, String template, Map<String, Object> parameters) {
  public ScheduledRun {
    parameters = parameters == null ? Map.of() : parameters;
  }
}
