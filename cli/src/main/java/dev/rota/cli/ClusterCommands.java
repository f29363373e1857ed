package dev.rota.cli;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import java.util.Map;
import picocli.CommandLine.Command;
import picocli.CommandLine.Option;

/** {@code rota cluster ...}: the scheduler's state and the cluster's settings. */
@Command(
    name = "cluster",
    description =
        "The scheduler's last term and counts; the scheduler profile; a cluster-wide pause.")
final class ClusterCommands extends Noun {
  @Command(
      name = "get",
      description =
          "The scheduler's workflow, its last term, workers by health, VMs by status, and the settings.")
  int get() {
    ApiClient api = root.api();
    JsonNode view = api.get("/v1/cluster");
    if (view instanceof ObjectNode o) {
      o.set("settings", api.get("/v1/cluster-settings"));
    }
    root.output().value(view);
    return ExitCodes.OK;
  }

  @Command(
      name = "set",
      description = "Change a setting: rota cluster set --profile distribute-load")
  int set(
      @Option(
              names = "--profile",
              required = true,
              paramLabel = "PROFILE",
              description = "optimize-utilization (pack) or distribute-load (spread)")
          String profile) {
    root.output()
        .value(root.api().put("/v1/cluster-settings", Map.of("schedulerProfile", profile)));
    return ExitCodes.OK;
  }

  @Command(
      name = "pause",
      description =
          "Stop placements and moves (terms still observe, judge health and report), and with"
              + " --reject-submissions refuse new VMs and VM sets; every pending VM shows the"
              + " reason.")
  int pause(
      @Option(
              names = "--reason",
              required = true,
              paramLabel = "TEXT",
              description = "why, shown to users")
          String reason,
      @Option(
              names = "--reject-submissions",
              description = "also answer new submissions 503 with the reason")
          boolean rejectSubmissions) {
    Map<String, Object> patch = new java.util.LinkedHashMap<>();
    patch.put("schedulingPaused", true);
    if (rejectSubmissions) {
      patch.put("rejectSubmissions", true);
    }
    patch.put("reason", reason);
    root.output().value(root.api().patch("/v1/cluster", patch));
    return ExitCodes.OK;
  }

  @Command(name = "resume", description = "Place and take submissions again.")
  int resume() {
    root.output()
        .value(
            root.api()
                .patch(
                    "/v1/cluster", Map.of("schedulingPaused", false, "rejectSubmissions", false)));
    return ExitCodes.OK;
  }
}
