package dev.rota.cli;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.Callable;
import picocli.CommandLine.Command;
import picocli.CommandLine.Mixin;
import picocli.CommandLine.Option;
import picocli.CommandLine.Parameters;
import picocli.CommandLine.ParentCommand;

/** {@code rota vm ...}: the VMs users submit (docs/api.md). */
@Command(
    name = "vm",
    description = "Create, list, describe, stop, start, restart and delete VMs.",
    subcommands = VmCommands.Create.class)
final class VmCommands extends Noun {
  static final List<Output.Column> COLUMNS =
      List.of(
          Output.Column.field("NAME", "name"),
          new Output.Column("STATUS", VmCommands::status),
          Output.Column.field("WORKER", "worker"),
          Output.Column.field("RESTARTS", "restartCount"),
          Output.Column.field("SET", "set"),
          new Output.Column("RUNS", VmCommands::runs).wideOnly(),
          new Output.Column("CPU", vm -> Output.text(vm.path("resources").path("cpu"))).wideOnly(),
          new Output.Column("MEMORY", vm -> Output.text(vm.path("resources").path("memory")))
              .wideOnly(),
          new Output.Column("ENDPOINTS", VmCommands::endpoints).wideOnly(),
          Output.Column.field("CREATED", "createdAt").wideOnly(),
          Output.Column.field("MESSAGE", "statusMessage"));

  /**
   * Its status, and while it waits to be restarted, when: {@code failed (restart at 15:04:12Z)}. A
   * back-off is minutes at most, so the time of day says it.
   */
  static String status(JsonNode vm) {
    String status = vm.path("status").asText("-");
    JsonNode at = vm.path("restartAt");
    if (!at.isTextual()) {
      return status;
    }
    String time = at.asText();
    int t = time.indexOf('T');
    String clock = t < 0 ? time : time.substring(t + 1).replaceAll("\\.[0-9]+", "");
    return status + " (restart at " + clock + ")";
  }

  /** Where its ports are reached while it runs: {@code ssh=10.0.0.5:20001}. */
  static String endpoints(JsonNode vm) {
    List<String> shown = new java.util.ArrayList<>();
    vm.path("endpoints")
        .forEach(e -> shown.add(e.path("name").asText() + "=" + e.path("address").asText()));
    return shown.isEmpty() ? "-" : String.join(",", shown);
  }

  /** What it runs: its image, or else its command as a shell would take it back. */
  static String runs(JsonNode vm) {
    if (vm.hasNonNull("image")) {
      return vm.get("image").asText();
    }
    return vm.path("command").isEmpty() ? "" : ShellWords.of(vm.path("command"));
  }

  static String path(String name) {
    return "/v1/vms/" + ApiClient.segment(name);
  }

  /** Options every command that can wait shares. */
  static final class WaitOptions {
    @Option(
        names = "--wait",
        description =
            "wait until it is done, showing progress: running and ready; for create, also a"
                + " program that ran and ended (exit code 0 is done, another failed)")
    boolean wait;

    @Option(
        names = "--timeout",
        paramLabel = "DURATION",
        defaultValue = "5m",
        description = "how long --wait waits (default 5m)")
    String timeout;
  }

  /**
   * Waits until the VM runs and is ready (a restart: its next generation); its failure ends the
   * wait, and so does its fitting no worker of the cluster. A VM just created whose program ran and
   * ended before it was seen running ends the wait too: done with exit code 0, failed with another.
   */
  static void awaitRunning(
      RotaCli root, ApiClient api, String name, int afterRestarts, WaitOptions w) {
    awaitRunning(root, api, name, afterRestarts, w, false);
  }

  private static void awaitRunning(
      RotaCli root,
      ApiClient api,
      String name,
      int afterRestarts,
      WaitOptions w,
      boolean justCreated) {
    root.waiter(Waiter.parse(w.timeout))
        .until(
            "vm " + name,
            () -> {
              JsonNode vm = api.get(path(name));
              String status = vm.path("status").asText();
              String progress =
                  status
                      + (vm.hasNonNull("worker") ? " on " + vm.get("worker").asText() : "")
                      + (vm.hasNonNull("statusMessage")
                          ? ": " + vm.get("statusMessage").asText()
                          : "");
              boolean current = vm.path("restartCount").asInt() >= afterRestarts;
              // Running is not ready while its readiness check has not passed.
              if (current && status.equals("running") && vm.path("ready").asBoolean(true)) {
                return Waiter.Look.done(progress);
              }
              if (current && status.equals("running")) {
                return Waiter.Look.waiting(
                    progress
                        + ", not ready"
                        + (vm.hasNonNull("readinessMessage")
                            ? ": " + vm.get("readinessMessage").asText()
                            : ""));
              }
              if (justCreated && status.equals("stopped") && vm.hasNonNull("exitCode")) {
                // It ran and ended (a program that ends at once): what it came to is the answer.
                return vm.get("exitCode").asInt() == 0
                    ? Waiter.Look.done(progress)
                    : Waiter.Look.failed(progress);
              }
              if (vm.path("unplaceable").asBoolean(false)) {
                // Nothing will change until the cluster does.
                return Waiter.Look.unreachable("cannot be placed", progress);
              }
              return current && status.equals("failed")
                  ? Waiter.Look.failed(progress)
                  : Waiter.Look.waiting(progress);
            });
  }

  @Command(
      name = "create",
      description = "Submit a VM: rota vm create build-42 --cpu 2 -- sleep 3600")
  static final class Create implements Callable<Integer> {
    @ParentCommand VmCommands vm;

    @Parameters(
        index = "0",
        paramLabel = "NAME",
        arity = "0..1",
        description = "its name (or the file's)")
    String name;

    @Mixin VmSpecOptions spec;
    @Mixin WaitOptions wait;

    @Option(
        names = "--from-pool",
        paramLabel = "POOL",
        description =
            "claim a ready VM of this warm pool instead of booting one: the pool's template is"
                + " its spec; --user-data FILE is written into its running guest (qemu)")
    String fromPool;

    @Option(
        names = "--from-template",
        paramLabel = "TEMPLATE",
        description =
            "make it of this template (rota template list): its spec, with --param values")
    String fromTemplate;

    @Mixin TemplateParameters params;

    @Parameters(
        index = "1..*",
        paramLabel = "COMMAND",
        description = "the command and its arguments, after --")
    List<String> command;

    @picocli.CommandLine.Spec picocli.CommandLine.Model.CommandSpec self;

    @Override
    public Integer call() {
      List<String> args = self.commandLine().getParseResult().originalArgs();
      int dashes = args.indexOf("--");
      if (name != null && dashes >= 0 && !args.subList(0, dashes).contains(name)) {
        // "create -- sleep 1": everything after -- is the command, its first word included.
        List<String> all = new java.util.ArrayList<>(List.of(name));
        if (command != null) {
          all.addAll(command);
        }
        command = all;
        name = null;
      }
      if (fromPool != null && (command != null || name == null)) {
        throw new CliException(
            ExitCodes.USAGE,
            "a VM from a pool takes a NAME and no command: rota vm create NAME --from-pool POOL");
      }
      if (fromTemplate != null && (command != null || name == null || fromPool != null)) {
        throw new CliException(
            ExitCodes.USAGE,
            "a VM of a template takes a NAME and no command: rota vm create NAME --from-template"
                + " TEMPLATE [--param NAME=VALUE]...");
      }
      // A claim sends what the flags say too: --user-data is the guest's, and the API names any
      // other as not taken with a pool (or a template).
      ObjectNode body =
          fromPool != null
              ? spec.spec(vm.root.json, System.in, null, Context.NONE).put("fromPool", fromPool)
              : fromTemplate != null
                  ? spec.spec(vm.root.json, System.in, null, Context.NONE)
                  : spec.spec(vm.root.json, System.in, command, vm.root.api().context());
      if (fromTemplate != null) {
        params.into(body, fromTemplate, vm.root.json);
      }
      if (name != null) {
        body.put("name", name);
      }
      if (!body.hasNonNull("name")) {
        throw new CliException(
            ExitCodes.USAGE,
            "a VM needs a NAME (or a name in its file): rota vm create NAME [-- COMMAND...]");
      }
      ApiClient api = vm.root.api();
      JsonNode created = api.post("/v1/vms", body);
      if (wait.wait) {
        awaitRunning(vm.root, api, created.path("name").asText(), 0, wait, true);
        created = api.get(path(created.path("name").asText()));
      }
      vm.root.output().one(created, COLUMNS);
      return ExitCodes.OK;
    }
  }

  @Command(name = "list", description = "List VMs, oldest name first.")
  int list(
      @Option(names = "--status", paramLabel = "STATUS", description = "only VMs in this status")
          String status,
      @Option(names = "--worker", paramLabel = "WORKER", description = "only VMs on this worker")
          String worker,
      @Option(names = "--set", paramLabel = "SET", description = "only replicas of this VM set")
          String set,
      @Option(names = "--limit", paramLabel = "N", description = "at most this many") Integer limit,
      @Option(
              names = {"-l", "--selector"},
              paramLabel = "KEY=VALUE[,...]",
              description = "only VMs whose labels (what their worker must carry) have these")
          List<String> selector,
      @Mixin NamespaceFilter inNamespace,
      @Option(
              names = {"-w", "--watch"},
              description = "then a row per change, as it happens, until interrupted")
          boolean watch) {
    if (watch) {
      if (status != null
          || worker != null
          || set != null
          || limit != null
          || selector != null
          || inNamespace.namespace != null) {
        throw new CliException(
            ExitCodes.USAGE,
            "--watch shows every VM: it does not go with --status, --worker, --set, --limit, -l"
                + " or -n");
      }
      return watched("/v1/vms", COLUMNS);
    }
    Map<String, String> query = new LinkedHashMap<>();
    query.put("status", status);
    query.put("worker", worker);
    query.put("set", set);
    query.putAll(inNamespace.query(root.api().context()));
    return listed("vms", "/v1/vms", query, limit, Selector.parse(selector), COLUMNS);
  }

  @Command(name = "get", description = "Show VMs by name (-o yaml for all of each).")
  int get(@Parameters(paramLabel = "NAME", arity = "1..*") List<String> names) {
    if (names.size() == 1) {
      return shown(root.api().get(path(names.get(0))), COLUMNS);
    }
    // As kubectl: those found are shown, each one missing is said, and the exit code says so.
    List<JsonNode> found = new java.util.ArrayList<>();
    int code = ExitCodes.OK;
    for (String name : names) {
      try {
        found.add(root.api().get(path(name)));
      } catch (CliException e) {
        if (e.exitCode() != ExitCodes.NOT_FOUND) {
          throw e;
        }
        root.err.println("rota: " + e.getMessage());
        code = ExitCodes.NOT_FOUND;
      }
    }
    root.output().list("VMs", found, COLUMNS);
    return code;
  }

  @Command(
      name = "describe",
      description = "One VM as a person reads it: state and why, spec, times, its last events.")
  int describe(@Parameters(paramLabel = "NAME") String name) {
    ApiClient api = root.api();
    JsonNode vm = api.get(path(name));
    List<JsonNode> events = api.list(path(name) + "/events", Map.of(), null);
    Output output = root.output();
    if (!output.isTable()) {
      com.fasterxml.jackson.databind.node.ObjectNode both = root.json.createObjectNode();
      both.set("vm", vm);
      both.set("events", root.json.valueToTree(events));
      output.value(both);
      return ExitCodes.OK;
    }
    Description.of(vm, events).forEach(root.out::println);
    root.out.flush();
    return ExitCodes.OK;
  }

  @Command(name = "events", description = "What happened to a VM, oldest first.")
  int events(@Parameters(paramLabel = "NAME") String name) {
    return listed(
        "events",
        path(name) + "/events",
        Map.of(),
        null,
        List.of(
            Output.Column.field("TIME", "time"),
            Output.Column.field("TYPE", "type"),
            Output.Column.field("MESSAGE", "message")));
  }

  @Command(
      name = "logs",
      description =
          "The VM's output, kept after its task ends until the VM is deleted; -f to follow it.")
  int logs(
      @Parameters(paramLabel = "NAME") String name,
      @Option(
              names = {"-f", "--follow"},
              description = "keep printing what it writes, until its task ends")
          boolean follow,
      @Option(names = "--stderr", description = "its stderr instead of stdout") boolean stderr,
      @Option(
              names = {"-p", "--previous"},
              description = "the output of the generation before the current one")
          boolean previous,
      @Option(names = "--tail", paramLabel = "LINES", description = "only the last lines")
          Integer tail,
      @Option(
              names = "--since",
              paramLabel = "WHEN",
              description =
                  "only what was written since then: a duration (10m) or a time (RFC 3339)")
          String since,
      @Option(
              names = "--raw",
              description =
                  "its bytes as written; else, on a terminal, escape sequences and control"
                      + " characters are left out")
          boolean raw) {
    ApiClient api = root.api();
    TerminalSafeText safe = raw || !root.terminal() ? null : new TerminalSafeText();
    java.util.function.Consumer<String> print =
        text -> {
          root.out.print(safe == null ? text : safe.filter(text));
          root.out.flush();
        };
    Map<String, String> query = new LinkedHashMap<>();
    if (previous) {
      query.put("previous", "true");
    }
    if (tail != null) {
      query.put("tailLines", tail.toString());
    }
    if (since != null) {
      query.put("since", since(since));
    }
    if (stderr) {
      query.put("stream", "stderr");
    }
    String path = path(name) + "/logs";
    if (!follow) {
      print.accept(api.bytes(path + ApiClient.query(query), LOG_READ_TIMEOUT).text());
      print.accept(safe == null ? "" : safe.end());
      return ExitCodes.OK;
    }
    // One held stream while the task runs. If it breaks (the host went away), follow again from
    // the offset reached, so that nothing the worker keeps is lost or shown twice; a host that
    // does not answer is asked again each second, FOLLOW_RETRIES times.
    query.put("follow", "true");
    if (!previous) {
      untilItHasRun(api, name);
    }
    int failures = 0;
    while (true) {
      ApiClient.Followed followed;
      try {
        followed = api.follow(path + ApiClient.query(query), print);
      } catch (CliException e) {
        if (e.exitCode() != ExitCodes.UNREACHABLE || failures++ >= FOLLOW_RETRIES) {
          throw e;
        }
        pause();
        continue;
      }
      if (followed.ended()) {
        print.accept(safe == null ? "" : safe.end());
        return ExitCodes.OK;
      }
      failures = 0;
      query.remove("tailLines");
      query.remove("since");
      query.put("from", Long.toString(followed.reached()));
    }
  }

  /**
   * {@code logs -f} of a VM that has not run yet waits for its start, as its progress line says
   * (until Ctrl-C: the VM may wait long for room), rather than failing with nothing to show.
   */
  private void untilItHasRun(ApiClient api, String name) {
    JsonNode vm = api.getIfPresent(path(name));
    if (vm == null || !NOT_STARTED.contains(vm.path("status").asText())) {
      return; // the log's own answer says what there is to say
    }
    root.waiter(java.time.Duration.ofDays(3650))
        .until(
            "vm " + name,
            () -> {
              JsonNode now = api.get(path(name));
              String status = now.path("status").asText();
              String message = now.path("statusMessage").asText("");
              String progress = status + (message.isBlank() ? "" : ": " + message);
              return NOT_STARTED.contains(status)
                  ? Waiter.Look.waiting(progress)
                  : Waiter.Look.done(progress);
            });
  }

  private static final java.util.Set<String> NOT_STARTED = java.util.Set.of("pending", "scheduled");

  /** How many times in a row a broken follow tries again, a second apart, before it gives up. */
  static final int FOLLOW_RETRIES = 30;

  private static void pause() {
    try {
      Thread.sleep(1000);
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      throw new CliException(ExitCodes.FAILED, "interrupted");
    }
  }

  private static final java.time.Duration LOG_READ_TIMEOUT = java.time.Duration.ofSeconds(30);

  /** {@code --since}: a time as given, or a duration back from now. */
  private String since(String text) {
    try {
      return java.time.OffsetDateTime.parse(text).toInstant().toString();
    } catch (java.time.format.DateTimeParseException e) {
      return root.clock.instant().minus(Waiter.parse("--since", text)).toString();
    }
  }

  @Command(
      name = "port-forward",
      description =
          "Listen on 127.0.0.1 and carry each connection to one of the VM's ports through the"
              + " server (LOCAL:PORT, or PORT alone for the same local port; PORT a name or a"
              + " number). Runs until interrupted.")
  int portForward(
      @Parameters(paramLabel = "NAME") String name,
      @Parameters(paramLabel = "[LOCAL:]PORT") String ports) {
    PortForward.Ports parsed = PortForward.Ports.parse(ports);
    return new PortForward(root.api().context(), root.out, root.err).run(name, parsed);
  }

  @Command(
      name = "connect",
      description =
          "Connect stdin and stdout to one of the VM's ports through the server (PORT a name or a"
              + " number): for ssh's ProxyCommand, or a quick look at what the port says.")
  int connect(
      @Parameters(paramLabel = "NAME") String name, @Parameters(paramLabel = "PORT") String port) {
    return new PortForward(root.api().context(), root.out, root.err)
        .stdio(name, port, System.in, System.out);
  }

  @Command(
      name = "console",
      description =
          "Attach the terminal to the VM's serial console (a qemu VM) through the server; Ctrl-]"
              + " detaches and leaves the VM running.")
  int console(@Parameters(paramLabel = "NAME") String name) {
    return new VmConsole(root.api().context(), root.err).run(name, System.in, System.out);
  }

  @Command(
      name = "exec",
      description =
          "Run a command in the VM through the server: in a process VM's environment, or in a qemu"
              + " guest through its guest agent (qemu-guest-agent). Exits with the command's code.")
  int exec(
      @Parameters(index = "0", paramLabel = "NAME") String name,
      @Option(
              names = {"-i", "--stdin"},
              description = "pass stdin to the command (a qemu guest takes it whole, at its start)")
          boolean stdin,
      @Parameters(index = "1..*", arity = "1..*", paramLabel = "COMMAND") List<String> command) {
    return new VmExec(root.api().context(), root.err)
        .run(
            name,
            command,
            stdin ? System.in : java.io.InputStream.nullInputStream(),
            System.out,
            System.err);
  }

  @Command(
      name = "ssh",
      description =
          "ssh into the VM through the server: runs ssh (or ROTA_SSH) with 'rota vm connect' as"
              + " its ProxyCommand, to the VM's port named ssh (or --port).")
  int ssh(
      @Parameters(index = "0", paramLabel = "NAME") String name,
      @Option(
              names = {"-l", "--user"},
              paramLabel = "USER",
              description = "the guest's user")
          String user,
      @Option(
              names = {"-i", "--identity"},
              paramLabel = "FILE",
              description = "the private key to log in with")
          String identity,
      @Option(
              names = "--port",
              paramLabel = "PORT",
              defaultValue = "ssh",
              description = "the VM's port sshd listens on: a name or a number (default: ssh)")
          String port,
      @Parameters(
              index = "1..*",
              paramLabel = "COMMAND",
              description = "run this instead of a shell")
          List<String> command) {
    ApiClient api = root.api();
    if (identity == null && api.context().sshKey() != null) {
      identity = SshKeys.privateKey(api.context().sshKey()); // the key its VMs were given
    }
    String alias =
        GuestHostKeys.alias(
            name, java.time.Instant.parse(api.get(path(name)).path("createdAt").asText()));
    java.nio.file.Path knownHosts = GuestHostKeys.file(root.env);
    try {
      java.nio.file.Files.createDirectories(knownHosts.getParent());
      GuestHostKeys.forgetOthers(knownHosts, name, alias);
    } catch (java.io.IOException e) {
      throw new CliException(
          ExitCodes.FAILED,
          "cannot keep the guest's host key in " + knownHosts + ": " + e.getMessage());
    }
    List<String> words = command == null ? List.of() : command;
    if (!words.isEmpty() && words.get(0).equals("--")) {
      words = words.subList(1, words.size()); // the command given after --, as before
    }
    List<String> argv =
        SshCommand.argv(
            System.getenv().getOrDefault("ROTA_SSH", "ssh"),
            SshCommand.self(),
            name,
            port,
            user,
            identity,
            knownHosts,
            alias,
            words);
    ProcessBuilder ssh = new ProcessBuilder(argv).inheritIO();
    // The ProxyCommand is this CLI again: it finds the server and token in its environment.
    ssh.environment().put("ROTA_SERVER", api.context().server());
    if (api.context().token() != null && !api.context().token().isBlank()) {
      ssh.environment().put("ROTA_TOKEN", api.context().token());
    }
    try {
      return ssh.start().waitFor();
    } catch (java.io.IOException e) {
      throw new CliException(
          ExitCodes.USAGE, "cannot run " + argv.get(0) + " (" + e.getMessage() + "); set ROTA_SSH");
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      return ExitCodes.FAILED;
    }
  }

  @Command(
      name = "token",
      description =
          "Print a short-lived token that opens this VM's port-forward, connect, console, exec and"
              + " ssh, and nothing else.")
  int token(
      @Parameters(paramLabel = "NAME") String name,
      @Option(
              names = "--ttl",
              paramLabel = "DURATION",
              description = "how long it lasts: 15m unless given, 24h at most")
          String ttl) {
    java.util.Map<String, Object> body = new java.util.LinkedHashMap<>();
    if (ttl != null) {
      body.put("ttl", ttl);
    }
    JsonNode made = root.api().post(path(name) + "/access-tokens", body);
    if (root.format == Output.Format.TABLE) {
      root.output().say(made.path("token").asText());
    } else {
      root.output().value(made);
    }
    return ExitCodes.OK;
  }

  @Command(name = "stop", description = "End the VM's task; it stays, stopped.")
  int stop(@Parameters(paramLabel = "NAME") String name, @Mixin WaitOptions wait) {
    ApiClient api = root.api();
    JsonNode answer = api.post(path(name) + "/stop", null);
    if (wait.wait) {
      root.waiter(Waiter.parse(wait.timeout))
          .until(
              "vm " + name,
              () -> {
                String status = api.get(path(name)).path("status").asText();
                return status.equals("stopped") || status.equals("failed")
                    ? Waiter.Look.done(status)
                    : Waiter.Look.waiting(status);
              });
      answer = api.get(path(name));
    }
    return shown(answer, COLUMNS);
  }

  @Command(
      name = "snapshot",
      description =
          "Save a stopped or suspended VM's persistent disk as an image pushed to an OCI registry"
              + " (oci://registry/repository:tag); prints the image pinned by its digest.")
  int snapshot(
      @Parameters(index = "0", paramLabel = "NAME") String name,
      @Parameters(index = "1", paramLabel = "IMAGE") String image,
      @Option(
              names = "--memory",
              description =
                  "with the memory a suspended VM saved: VMs of the image go on from where it was")
          boolean memory) {
    JsonNode made =
        root.api()
            .post(
                path(name) + "/snapshot",
                memory ? Map.of("image", image, "memory", true) : Map.of("image", image));
    root.output().say(made.path("pinned").asText());
    return ExitCodes.OK;
  }

  @Command(
      name = "suspend",
      description =
          "Save the VM's memory on its worker and end its QEMU; `rota vm resume` goes on from there.")
  int suspend(
      @Parameters(paramLabel = "NAME") String name,
      @Option(
              names = "--in-place",
              description =
                  "pause its guest where it runs instead, its QEMU, memory and room on its worker kept")
          boolean inPlace,
      @Mixin WaitOptions wait) {
    ApiClient api = root.api();
    JsonNode answer = api.post(path(name) + "/suspend" + (inPlace ? "?inPlace=true" : ""), null);
    if (wait.wait && inPlace) {
      root.waiter(Waiter.parse(wait.timeout))
          .until(
              "vm " + name,
              () -> {
                String now = api.get(path(name)).path("status").asText();
                return now.equals("paused") ? Waiter.Look.done(now) : Waiter.Look.waiting(now);
              });
      answer = api.get(path(name));
    } else if (wait.wait) {
      boolean[] begun = {false};
      root.waiter(Waiter.parse(wait.timeout))
          .until(
              "vm " + name,
              () -> {
                JsonNode vm = api.get(path(name));
                String now = vm.path("status").asText();
                String message = vm.path("statusMessage").asText();
                begun[0] |= now.equals("suspending");
                if (now.equals("suspended")) {
                  return Waiter.Look.done(now);
                }
                // Running after the suspend began: its agent could not save its memory, and says
                // why. Running before: the suspend is still on its way.
                boolean failed =
                    !now.equals("suspending")
                        && (begun[0] || message.contains("could not be suspended"));
                return failed
                    ? Waiter.Look.unreachable("was not suspended", now + ": " + message)
                    : Waiter.Look.waiting(now);
              });
      answer = api.get(path(name));
    }
    return shown(answer, COLUMNS);
  }

  @Command(
      name = "start",
      description = "Run a stopped or failed VM again, or resume a suspended one.")
  int start(@Parameters(paramLabel = "NAME") String name, @Mixin WaitOptions wait) {
    return runAgain(name, "start", wait);
  }

  @Command(
      name = "resume",
      description =
          "Resume a suspended or paused VM where it was (a start of a suspended or paused VM).")
  int resume(@Parameters(paramLabel = "NAME") String name, @Mixin WaitOptions wait) {
    return runAgain(name, "start", wait);
  }

  @Command(name = "restart", description = "Stop the VM's task and run a new one.")
  int restart(@Parameters(paramLabel = "NAME") String name, @Mixin WaitOptions wait) {
    return runAgain(name, "restart", wait);
  }

  /** {@code start} or {@code restart}; a wait is for a generation after the one before the call. */
  private int runAgain(String name, String verb, WaitOptions wait) {
    ApiClient api = root.api();
    int before = wait.wait ? api.get(path(name)).path("restartCount").asInt() : 0;
    JsonNode answer = api.post(path(name) + "/" + verb, null);
    if (wait.wait) {
      awaitRunning(
          root,
          api,
          name,
          verb.equals("restart") ? before + 1 : answer.path("restartCount").asInt(),
          wait);
      answer = api.get(path(name));
    }
    return shown(answer, COLUMNS);
  }

  @Command(
      name = "extend",
      description =
          "Extend the VM's lease (its maxRunDuration) by DURATION: it runs out that much later.")
  int extend(
      @Parameters(paramLabel = "NAME") String name,
      @Parameters(paramLabel = "DURATION", description = "30m, 2h, 1d") String by) {
    ApiClient api = root.api();
    JsonNode answer =
        api.put(
            path(name) + "/lease",
            java.util.Map.of("extendBy", Waiter.inApi(Waiter.parse("DURATION", by))));
    if (root.format == Output.Format.TABLE) {
      root.output()
          .say("vm " + name + ": lease runs out at " + answer.path("leaseExpiresAt").asText());
    } else {
      root.output().value(answer);
    }
    return ExitCodes.OK;
  }

  @Command(name = "delete", description = "Remove each VM's task, then the VM.")
  int delete(
      @Parameters(paramLabel = "NAME", arity = "1..*") List<String> names,
      @Mixin WaitOptions wait) {
    for (String name : names) {
      deleteOne(name, wait);
    }
    return ExitCodes.OK;
  }

  private void deleteOne(String name, WaitOptions wait) {
    ApiClient api = root.api();
    api.delete(path(name));
    if (wait.wait) {
      root.waiter(Waiter.parse(wait.timeout))
          .until(
              "vm " + name,
              () -> {
                try {
                  return Waiter.Look.waiting(
                      api.get(path(name)).path("status").asText() + ", being deleted");
                } catch (CliException e) {
                  if (e.exitCode() == ExitCodes.NOT_FOUND) {
                    return Waiter.Look.done("deleted");
                  }
                  throw e;
                }
              });
    }
    root.output().say("vm " + name + (wait.wait ? " deleted" : " being deleted"));
  }
}
