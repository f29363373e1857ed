package dev.rota.cli;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import java.util.Map;
import picocli.CommandLine;
import picocli.CommandLine.Command;
import picocli.CommandLine.Option;

/** {@code rota cluster ...}: the scheduler's state and the cluster's settings. */
@Command(
    name = "cluster",
    description =
        "The scheduler's last term and counts; the scheduler profile and the default lease; a"
            + " cluster-wide pause.")
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
      description =
          "Change settings, leaving the others as they are: rota cluster set --profile"
              + " distribute-load --default-max-run 8h")
  int set(
      @Option(
              names = "--profile",
              paramLabel = "PROFILE",
              description = "optimize-utilization (pack) or distribute-load (spread)")
          String profile,
      @Option(
              names = "--default-max-run",
              paramLabel = "DURATION|none",
              description =
                  "the lease VMs and sets submitted without --max-run get from now on (8h, 7d), or none")
          String defaultMaxRun,
      @Option(
              names = "--instance-size",
              paramLabel = "NAME=CPUS,MEMORY|NAME=none",
              description =
                  "an instance size VMs may name (--size): small=1,1Gi; small=none removes it"
                      + " (repeatable)")
          Map<String, String> sizes,
      @Option(
              names = "--preemption",
              paramLabel = "on|off",
              description =
                  "on: a waiting VM may evict running VMs at least 10 below its priority that restart, to make room")
          String preemption) {
    if (profile == null && defaultMaxRun == null && sizes == null && preemption == null) {
      throw new CommandLine.ParameterException(
          spec.commandLine(), "give --profile, --default-max-run, --instance-size or --preemption");
    }
    if (preemption != null && !preemption.equals("on") && !preemption.equals("off")) {
      throw new CommandLine.ParameterException(
          spec.commandLine(), "--preemption " + preemption + ": give on or off");
    }
    ApiClient api = root.api();
    Map<String, Object> settings = new java.util.LinkedHashMap<>();
    JsonNode current = api.get("/v1/cluster-settings");
    current.fields().forEachRemaining(f -> settings.put(f.getKey(), f.getValue()));
    if (profile != null) {
      settings.put("schedulerProfile", profile);
    }
    if (preemption != null) {
      settings.put("preemption", preemption.equals("on"));
    }
    if (defaultMaxRun != null) {
      settings.put(
          "defaultMaxRunDuration",
          defaultMaxRun.equals("none")
              ? null
              : Waiter.inApi(Waiter.parse("--default-max-run", defaultMaxRun)));
    }
    if (sizes != null) {
      Map<String, Object> all = new java.util.TreeMap<>();
      current
          .path("instanceSizes")
          .fields()
          .forEachRemaining(f -> all.put(f.getKey(), f.getValue()));
      sizes.forEach(
          (name, written) -> {
            if (written.equals("none")) {
              all.remove(name);
              return;
            }
            String[] parts = written.split(",");
            if (parts.length != 2 || !parts[0].strip().matches("[0-9]{1,9}")) {
              throw new CommandLine.ParameterException(
                  spec.commandLine(),
                  "--instance-size " + name + "=" + written + ": give CPUS,MEMORY, as small=1,1Gi");
            }
            all.put(
                name, Map.of("cpu", Long.parseLong(parts[0].strip()), "memory", parts[1].strip()));
          });
      settings.put("instanceSizes", all);
    }
    root.output().value(api.put("/v1/cluster-settings", settings));
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
