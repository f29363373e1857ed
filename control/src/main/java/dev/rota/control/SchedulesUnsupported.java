package dev.rota.control;

/** The Temporal server has no Schedules: dev mode's embedded Java test server. Nothing was done. */
public class SchedulesUnsupported extends RuntimeException {
  public SchedulesUnsupported() {
    super(
        "this Temporal server has no Schedules (dev mode's embedded server); run dev mode with the"
            + " Temporal CLI's server (ROTA_DEV_TEMPORAL=cli) or a Temporal cluster");
  }
}
