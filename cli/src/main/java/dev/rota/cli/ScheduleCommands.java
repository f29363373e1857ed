package dev.rota.cli;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import java.util.ArrayList;
import java.util.List;
import picocli.CommandLine.ArgGroup;
import picocli.CommandLine.Command;
import picocli.CommandLine.Mixin;
import picocli.CommandLine.Option;
import picocli.CommandLine.Parameters;

/** {@code rota schedule ...}: VMs of a template made on a cron expression or an interval. */
@Command(
    name = "schedule",
    description =
        "Create, list, inspect, pause, resume, trigger and delete schedules: a VM of a template"
            + " made on a cron expression or every interval (Temporal Schedules).")
final class ScheduleCommands extends Noun {
  static final List<Output.Column> COLUMNS =
      List.of(
          Output.Column.field("NAME", "name"),
          Output.Column.field("TEMPLATE", "template"),
          new Output.Column(
              "WHEN",
              s ->
                  s.path("cron").isTextual()
                      ? s.path("cron").asText()
                          + (s.path("timeZone").isTextual()
                              ? " (" + s.path("timeZone").asText() + ")"
                              : "")
                      : "every " + s.path("interval").asText()),
          Output.Column.field("OVERLAP", "overlap"),
          new Output.Column("PAUSED", s -> s.path("paused").asBoolean() ? "yes" : "no"),
          new Output.Column(
              "NEXT",
              s ->
                  s.path("nextRuns").path(0).isTextual() ? s.path("nextRuns").get(0).asText() : ""),
          new Output.Column(
              "RUNNING", s -> s.path("runningVms").size() == 0 ? "" : join(s.path("runningVms"))));

  static String path(String name) {
    return "/v1/schedules/" + ApiClient.segment(name);
  }

  private static String join(JsonNode names) {
    List<String> all = new ArrayList<>();
    names.forEach(n -> all.add(n.asText()));
    return String.join(",", all);
  }

  /** When runs are due: one of a cron expression and an interval. */
  static final class When {
    @Option(
        names = "--cron",
        paramLabel = "EXPR",
        description =
            "five fields, minute hour day-of-month month day-of-week ('0 2 * * MON-FRI'),"
                + " or @hourly, @daily, @weekly, @monthly, @yearly")
    String cron;

    @Option(
        names = "--every",
        paramLabel = "DURATION",
        description = "a run every so long: 10s, 5m, 1h")
    String every;
  }

  @Command(
      name = "create",
      description =
          "Create a schedule: rota schedule create nightly --template runner --cron '0 2 * * *'"
              + " --param branch=main")
  int create(
      @Parameters(paramLabel = "NAME") String name,
      @Option(
              names = "--template",
              required = true,
              paramLabel = "TEMPLATE",
              description = "the template each run makes a VM of (rota template list)")
          String template,
      @Mixin TemplateParameters params,
      @ArgGroup(exclusive = true, multiplicity = "1") When when,
      @Option(
              names = "--time-zone",
              paramLabel = "ZONE",
              description = "the zone the cron expression is read in: Europe/Berlin (UTC without)")
          String timeZone,
      @Option(
              names = "--jitter",
              paramLabel = "DURATION",
              description = "each run made up to this much later than its time, at random")
          String jitter,
      @Option(
              names = "--overlap",
              paramLabel = "POLICY",
              description =
                  "a run due while the last one's VM runs: skip (default), bufferOne, allowAll,"
                      + " cancelOther (stops the last one's VM)")
          String overlap,
      @Option(names = "--paused", description = "make it paused: no run until resumed")
          boolean paused) {
    ObjectNode body = root.json.createObjectNode().put("name", name).put("template", template);
    if (!params.params.isEmpty()) {
      body.set("parameters", params.values(root.json));
    }
    if (when.cron != null) {
      body.put("cron", when.cron);
    } else {
      body.put("interval", when.every);
    }
    if (timeZone != null) {
      body.put("timeZone", timeZone);
    }
    if (jitter != null) {
      body.put("jitter", jitter);
    }
    if (overlap != null) {
      body.put("overlap", overlap);
    }
    if (paused) {
      body.put("paused", true);
    }
    return shown(root.api().post("/v1/schedules", body), COLUMNS);
  }

  @Command(name = "list", description = "List schedules by name.")
  int list() {
    List<JsonNode> items = new ArrayList<>();
    root.api().get("/v1/schedules").path("items").forEach(items::add);
    root.output().list("schedules", items, COLUMNS);
    return ExitCodes.OK;
  }

  @Command(name = "get", description = "Show a schedule: its next times, recent runs and VMs.")
  int get(@Parameters(paramLabel = "NAME") String name) {
    return shown(root.api().get(path(name)), COLUMNS);
  }

  @Command(name = "pause", description = "Pause a schedule: no run comes due until resumed.")
  int pause(
      @Parameters(paramLabel = "NAME") String name,
      @Option(names = "--note", paramLabel = "TEXT", description = "why, shown with it")
          String note) {
    return noted(name, "pause", note);
  }

  @Command(name = "resume", description = "Resume a paused schedule.")
  int resume(
      @Parameters(paramLabel = "NAME") String name,
      @Option(names = "--note", paramLabel = "TEXT", description = "why, shown with it")
          String note) {
    return noted(name, "resume", note);
  }

  @Command(
      name = "trigger",
      description = "Make a run now, under the schedule's overlap policy; its VM follows shortly.")
  int trigger(@Parameters(paramLabel = "NAME") String name) {
    return shown(root.api().post(path(name) + "/trigger", null), COLUMNS);
  }

  @Command(name = "delete", description = "Delete a schedule; the VMs it made go on.")
  int delete(@Parameters(paramLabel = "NAME") String name) {
    root.api().delete(path(name));
    root.output().say("schedule " + name + " deleted");
    return ExitCodes.OK;
  }

  /** A pause or a resume, with its note if given. */
  private int noted(String name, String action, String note) {
    ObjectNode body = root.json.createObjectNode();
    if (note != null) {
      body.put("note", note);
    }
    return shown(root.api().post(path(name) + "/" + action, body), COLUMNS);
  }
}
