package dev.rota.cli;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.ObjectNode;
import com.fasterxml.jackson.dataformat.yaml.YAMLFactory;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import picocli.CommandLine.Option;

/**
 * A VM's spec on the command line, for {@code vm create} and a set's template: flags for the usual
 * fields, the command after them, or a whole spec from a JSON or YAML file that flags then amend.
 * Fields left out are the server's to default (docs/api.md), so the CLI never second-guesses them.
 */
final class VmSpecOptions {
  @Option(
      names = {"-f", "--file"},
      paramLabel = "FILE",
      description = "a VM spec in JSON or YAML (- for stdin); flags amend it")
  String file;

  @Option(
      names = "--image",
      paramLabel = "IMAGE",
      description =
          "the boot disk of a qemu VM: an https://, http:// or file:// address of a "
              + "qcow2 or raw image, optionally pinned with @sha256:<hex>, or an image in an OCI"
              + " registry, oci://registry/repository[:tag][@sha256:<hex>] (with --runtime qemu)")
  String image;

  @Option(
      names = "--runtime",
      paramLabel = "RUNTIME",
      description = "process (default), qemu, or another the workers offer")
  String runtime;

  @Option(
      names = "--kernel",
      paramLabel = "ADDRESS",
      description = "a kernel for a qemu VM to boot directly (an image address)")
  String kernel;

  @Option(
      names = "--initrd",
      paramLabel = "ADDRESS",
      description = "the initrd booted with --kernel")
  String initrd;

  @Option(
      names = "--kernel-args",
      paramLabel = "ARGS",
      description = "the kernel command line booted with --kernel")
  String kernelArgs;

  @Option(
      names = "--user-data",
      paramLabel = "FILE",
      description = "cloud-init user data for a qemu VM (a NoCloud seed)")
  String userData;

  @Option(
      names = "--ssh-key",
      paramLabel = "FILE",
      description =
          "an SSH public key file (FILE.pub is taken for a private key FILE) for a qemu guest's"
              + " default user, through cloud-init; repeatable. Default: the context's key")
  List<String> sshKeys;

  @Option(
      names = "--startup-script",
      paramLabel = "FILE",
      description = "a script cloud-init runs once at a qemu guest's first boot")
  String startupScript;

  @Option(names = "--cpu", paramLabel = "N", description = "CPUs to reserve (default 1)")
  Long cpu;

  @Option(
      names = "--size",
      paramLabel = "SIZE",
      description =
          "an instance size the cluster names (rota cluster settings): its CPUs and memory, but for"
              + " those --cpu and --memory give")
  String size;

  @Option(
      names = "--memory",
      paramLabel = "SIZE",
      description = "memory to reserve: MiB, or with a unit such as 512Mi or 2Gi (default 512Mi)")
  String memory;

  @Option(
      names = "--worker-label",
      paramLabel = "KEY=VALUE",
      description = "a label the worker must carry (the VM's labels); repeatable")
  Map<String, String> labels = new LinkedHashMap<>();

  @Option(
      names = "--worker-pool",
      paramLabel = "POOL",
      description =
          "the worker pool it goes to (ROTA_WORKER_POOL on their agents); default: the default pool")
  String workerPool;

  @Option(
      names = "--constraint",
      paramLabel = "'LABEL OP [VALUES]'",
      description =
          "a rule on the worker's labels: 'zone in a,b', 'zone notIn c', 'os = linux', 'os != darwin',"
              + " 'gpu exists', 'gpu notExists', 'name regexp ci-.*', 'kernel version >= 6.1, < 7';"
              + " repeatable")
  List<String> constraints = new java.util.ArrayList<>();

  @Option(
      names = "--toleration",
      paramLabel = "TAINT",
      description =
          "a worker taint it may go past (ROTA_WORKER_TAINTS on their agents): 'dedicated=gpu:NoSchedule'"
              + " that taint, 'spot' or 'spot:PreferNoSchedule' the key's taint whatever its value,"
              + " '*' every taint; repeatable")
  List<String> tolerations = new java.util.ArrayList<>();

  @Option(
      names = "--affinity",
      paramLabel = "'WEIGHT LABEL OP [VALUES]'",
      description =
          "a preference for workers whose labels meet a rule, as --constraint writes it, weighed from"
              + " -100 (avoid) to 100 (prefer): '50 zone = a', '-20 spot exists'; repeatable")
  List<String> affinities = new java.util.ArrayList<>();

  @Option(
      names = "--port",
      paramLabel = "NAME:PORT",
      description =
          "a port the VM serves, by name (ssh:22): its worker's port is shown in its endpoints;"
              + " a process finds it in ROTA_PORT_<NAME>; repeatable")
  List<String> ports = new java.util.ArrayList<>();

  @Option(
      names = "--egress",
      paramLabel = "MODE",
      description =
          "where a qemu guest may connect to: internet (default: public addresses only), none, or"
              + " the CIDRs, addresses and host names it alone may reach, comma separated")
  String egress;

  @Option(
      names = "--readiness",
      paramLabel = "CHECK",
      description =
          "when the VM is ready: guest-agent, tcp:PORT, http:PORT[/PATH] or exec:COMMAND, on a"
              + " named port; every 10s, 3 failures in a row count (a spec file sets more)")
  String readiness;

  @Option(
      names = "--liveness",
      paramLabel = "CHECK",
      description =
          "when the VM must be restarted: guest-agent, tcp:PORT, http:PORT[/PATH] or"
              + " exec:COMMAND; it fails, to be restarted under its restart policy")
  String liveness;

  @Option(
      names = "--isolation",
      paramLabel = "required|optional",
      description =
          "required (default): run a qemu guest only on workers that confine it; optional: anywhere")
  String isolation;

  @Option(
      names = {"-e", "--env"},
      paramLabel = "KEY=VALUE",
      description = "an environment variable; repeatable")
  Map<String, String> env = new LinkedHashMap<>();

  @Option(
      names = "--env-secret",
      paramLabel = "KEY=SECRET",
      description = "an environment variable whose value is a secret's (rota secret); repeatable")
  Map<String, String> envSecrets = new LinkedHashMap<>();

  @Option(
      names = "--restart",
      paramLabel = "POLICY",
      description =
          "Never, OnFailure or Always (default: Never for a VM, Always for a set's replicas)")
  String restartPolicy;

  @Option(
      names = {"-n", "--namespace"},
      paramLabel = "NAMESPACE",
      description = "the namespace it lives in (default: the context's, else default)")
  String namespace;

  @Option(
      names = "--priority",
      paramLabel = "0-100",
      description = "how far ahead of other pending VMs it is placed, 0 to 100 (default 50)")
  Integer priority;

  @Option(
      names = "--max-restarts",
      paramLabel = "N",
      description = "restarts after failures allowed within the window")
  Integer maxRestarts;

  @Option(
      names = "--restart-window",
      paramLabel = "DURATION",
      description = "the window for --max-restarts (30m, 1h, 24h; default 1h)")
  String restartWindow;

  @Option(
      names = "--ttl",
      paramLabel = "DURATION",
      description =
          "delete it this long after it finished, stopped or failed for good (30s, 10m, 1h; 0s at once)")
  String ttl;

  @Option(
      names = "--persistent-disk",
      description =
          "a qemu VM's root disk outlives its tasks: kept on its worker, which the VM then stays on, across stop, start and restart, until the VM is deleted")
  boolean persistentDisk;

  @Option(
      names = "--disk-size",
      paramLabel = "GI",
      description = "the size of a qemu VM's root disk in GiB (the image's unless given)")
  Integer diskSize;

  @Option(
      names = "--migration",
      paramLabel = "live|restart",
      description =
          "how a drain moves it while it runs: live (a qemu VM with a persistent disk, the default for one: its memory and disk carried over, no restart) or restart")
  String migration;

  @Option(
      names = "--volume",
      paramLabel = "NAME[:PATH]",
      description =
          "mount a data volume (rota volume create); PATH is where a guest with cloud-init mounts it. Repeat for more. The VM then stays on the volume's worker, its root disk persistent")
  List<String> volumes;

  @Option(
      names = "--max-run",
      paramLabel = "DURATION",
      description =
          "its lease: stop it (or --on-expiry delete|suspend) once it has run this long (30m, 2h, 7d), counted from when it first runs")
  String maxRun;

  @Option(
      names = "--on-expiry",
      paramLabel = "stop|delete|suspend",
      description = "what becomes of it when its lease (--max-run) runs out (default stop)")
  String onExpiry;

  @Option(
      names = "--keep-through-disconnect",
      description =
          "never place it elsewhere while its worker is cut off: its agent keeps it running (disconnect.replace false)")
  boolean keepThroughDisconnect;

  @Option(
      names = "--stop-after-disconnect",
      paramLabel = "DURATION",
      description = "with --keep-through-disconnect, stop it after this long cut off (10m, 1h)")
  String stopAfterDisconnect;

  /**
   * A {@code --constraint} as the API takes it: the label, the operator, then its values (a comma
   * list for {@code in} and {@code notIn}, the rest as one for the others); the server checks it.
   */
  private static ObjectNode constraint(ObjectMapper json, String written) {
    return rule(json, written, "--constraint " + written);
  }

  /** An {@code --affinity}: its weight, then a rule as {@link #constraint} reads one. */
  private static ObjectNode affinity(ObjectMapper json, String written) {
    String[] parts = written.strip().split("\\s+", 2);
    int weight;
    try {
      weight = Integer.parseInt(parts[0]);
    } catch (NumberFormatException e) {
      throw new CliException(
          ExitCodes.USAGE,
          "--affinity " + written + ": give WEIGHT LABEL OPERATOR [VALUES], as '50 zone = a'");
    }
    ObjectNode node = rule(json, parts.length < 2 ? "" : parts[1], "--affinity " + written);
    node.put("weight", weight);
    return node;
  }

  private static ObjectNode rule(ObjectMapper json, String written, String option) {
    String[] parts = written.strip().split("\\s+", 3);
    if (parts.length < 2) {
      throw new CliException(
          ExitCodes.USAGE, option + ": give LABEL OPERATOR [VALUES], as 'zone in a,b'");
    }
    com.fasterxml.jackson.databind.node.ObjectNode rule = json.createObjectNode();
    rule.put("label", parts[0]).put("operator", parts[1]);
    com.fasterxml.jackson.databind.node.ArrayNode values = rule.putArray("values");
    if (parts.length == 3) {
      if (parts[1].equals("in") || parts[1].equals("notIn")) {
        for (String v : parts[2].split(",")) {
          values.add(v.strip());
        }
      } else {
        values.add(parts[2]);
      }
    }
    return rule;
  }

  /** A {@code --toleration} as the API takes it; the server checks it. */
  private static ObjectNode toleration(ObjectMapper json, String written) {
    dev.rota.agentapi.Toleration t = dev.rota.agentapi.Toleration.parse(written.strip());
    ObjectNode node = json.createObjectNode();
    if (!t.key().isEmpty()) {
      node.put("key", t.key());
    }
    node.put("operator", t.operator());
    if (!t.value().isEmpty()) {
      node.put("value", t.value());
    }
    if (t.effect() != null) {
      node.put("effect", t.effect());
    }
    return node;
  }

  private static String readFile(String file, String option) {
    try {
      return Files.readString(Path.of(file));
    } catch (IOException e) {
      throw new CliException(
          ExitCodes.USAGE, "cannot read " + option + " " + file + " (" + e.getMessage() + ")");
    }
  }

  /**
   * A set's or pool's body given the template's namespace, which is the set's: {@code --namespace}
   * names where the set lives, and its replicas with it.
   */
  static void namespaceOfSet(ObjectNode body, ObjectNode template) {
    JsonNode namespace = template.remove("namespace");
    if (namespace != null) {
      body.set("namespace", namespace);
    }
  }

  /**
   * The spec as the API takes it; {@code stdin} serves {@code -f -}. The command is the caller's
   * positional parameters (a mixin's own could not follow the command's NAME). The context gives
   * the SSH key and the namespace when neither the options nor the file name one.
   */
  ObjectNode spec(
      ObjectMapper json, java.io.InputStream stdin, List<String> command, Context context) {
    ObjectNode spec = file == null ? json.createObjectNode() : read(json, stdin);
    String contextKey = context.sshKey();
    putIfSet(spec, "image", image);
    putIfSet(spec, "runtime", runtime);
    putIfSet(spec, "namespace", namespace);
    if (!spec.has("namespace")) {
      putIfSet(spec, "namespace", context.namespace());
    }
    List<String> keys = new java.util.ArrayList<>();
    for (String f : sshKeys == null ? List.<String>of() : sshKeys) {
      keys.addAll(SshKeys.read(f, "--ssh-key"));
    }
    boolean qemu = "qemu".equals(spec.path("runtime").asText());
    if (keys.isEmpty() && qemu && contextKey != null && !spec.path("guest").has("sshKeys")) {
      keys.addAll(SshKeys.read(contextKey, "the context's ssh key"));
    }
    if (kernel != null
        || initrd != null
        || kernelArgs != null
        || userData != null
        || startupScript != null
        || !keys.isEmpty()) {
      ObjectNode guest =
          spec.has("guest") && spec.get("guest").isObject()
              ? (ObjectNode) spec.get("guest")
              : spec.putObject("guest");
      putIfSet(guest, "kernel", kernel);
      putIfSet(guest, "initrd", initrd);
      putIfSet(guest, "kernelArgs", kernelArgs);
      if (userData != null) {
        guest.put("userData", readFile(userData, "--user-data"));
      }
      if (startupScript != null) {
        guest.put("startupScript", readFile(startupScript, "--startup-script"));
      }
      if (!keys.isEmpty()) {
        keys.forEach(guest.putArray("sshKeys")::add);
      }
    }
    if (size != null) {
      spec.put("size", size);
    }
    if (cpu != null || memory != null) {
      ObjectNode resources =
          spec.has("resources") && spec.get("resources").isObject()
              ? (ObjectNode) spec.get("resources")
              : spec.putObject("resources");
      if (cpu != null) {
        resources.put("cpu", cpu);
      }
      if (memory != null) {
        // A plain number goes as one, so that the file the CLI writes reads as the user wrote it.
        if (memory.strip().matches("[0-9]{1,15}")) {
          resources.put("memory", Long.parseLong(memory.strip()));
        } else {
          resources.put("memory", memory.strip());
        }
      }
    }
    if (!labels.isEmpty()) {
      spec.set("labels", json.valueToTree(labels));
    }
    if (workerPool != null) {
      spec.put("workerPool", workerPool);
    }
    if (!constraints.isEmpty()) {
      com.fasterxml.jackson.databind.node.ArrayNode rules = spec.putArray("constraints");
      constraints.forEach(c -> rules.add(constraint(json, c)));
    }
    if (!affinities.isEmpty()) {
      com.fasterxml.jackson.databind.node.ArrayNode preferred = spec.putArray("affinities");
      affinities.forEach(a -> preferred.add(affinity(json, a)));
    }
    if (!tolerations.isEmpty()) {
      com.fasterxml.jackson.databind.node.ArrayNode tolerated = spec.putArray("tolerations");
      tolerations.forEach(t -> tolerated.add(toleration(json, t)));
    }
    if (!env.isEmpty() || !envSecrets.isEmpty()) {
      Map<String, Object> all = new LinkedHashMap<>(env);
      envSecrets.forEach((name, secret) -> all.put(name, Map.of("secretRef", secret)));
      spec.set("env", json.valueToTree(all));
    }
    if (!ports.isEmpty()) {
      com.fasterxml.jackson.databind.node.ArrayNode list = spec.putArray("ports");
      for (String port : ports) {
        String[] parts = port.split(":", -1);
        if (parts.length != 2 || !parts[1].matches("[0-9]{1,5}")) {
          throw new CliException(
              ExitCodes.USAGE, "--port " + port + " must be NAME:PORT, such as ssh:22");
        }
        list.addObject().put("name", parts[0]).put("port", Integer.parseInt(parts[1]));
      }
    }
    if (egress != null) {
      ObjectNode network = spec.putObject("network");
      String mode = egress.strip();
      if (mode.equals("internet") || mode.equals("none")) {
        network.put("egress", mode);
      } else {
        network.put("egress", "allow");
        com.fasterxml.jackson.databind.node.ArrayNode allow = network.putArray("allow");
        for (String entry : mode.split(",")) {
          if (!entry.isBlank()) {
            allow.add(entry.strip());
          }
        }
      }
    }
    putIfSet(spec, "isolation", isolation);
    if (readiness != null) {
      spec.set("readiness", check(json, "--readiness", readiness));
    }
    if (liveness != null) {
      spec.set("liveness", check(json, "--liveness", liveness));
    }
    putIfSet(spec, "restartPolicy", restartPolicy);
    if (priority != null) {
      spec.put("priority", priority);
    }
    if (maxRestarts != null) {
      spec.put("maxRestarts", maxRestarts);
    }
    if (restartWindow != null) {
      spec.put("restartWindow", Waiter.inApi(Waiter.parse("--restart-window", restartWindow)));
    }
    if (ttl != null) {
      spec.put("ttlAfterFinished", Waiter.inApi(Waiter.parse("--ttl", ttl)));
    }
    if (persistentDisk || diskSize != null) {
      ObjectNode disk = spec.putObject("disk");
      if (persistentDisk) {
        disk.put("persistent", true);
      }
      if (diskSize != null) {
        disk.put("sizeGi", diskSize);
      }
    }
    if (migration != null) {
      spec.put("migration", migration);
    }
    if (volumes != null && !volumes.isEmpty()) {
      com.fasterxml.jackson.databind.node.ArrayNode mounts = spec.putArray("volumes");
      for (String v : volumes) {
        int colon = v.indexOf(':');
        ObjectNode mount = mounts.addObject();
        mount.put("name", colon < 0 ? v : v.substring(0, colon));
        if (colon >= 0) {
          mount.put("mountPath", v.substring(colon + 1));
        }
      }
    }
    if (maxRun != null) {
      spec.put("maxRunDuration", Waiter.inApi(Waiter.parse("--max-run", maxRun)));
    }
    putIfSet(spec, "onExpiry", onExpiry);
    if (keepThroughDisconnect || stopAfterDisconnect != null) {
      ObjectNode disconnect = spec.putObject("disconnect");
      disconnect.put("replace", !keepThroughDisconnect);
      if (stopAfterDisconnect != null) {
        disconnect.put(
            "stopAfter",
            Waiter.inApi(Waiter.parse("--stop-after-disconnect", stopAfterDisconnect)));
      }
    }
    if (command != null && !command.isEmpty()) {
      spec.set("command", json.valueToTree(command));
    }
    return spec;
  }

  /**
   * A check as the API takes it, from {@code guest-agent}, {@code tcp:ssh}, {@code http:web/up},
   * {@code exec:test -f /ready}.
   */
  static ObjectNode check(ObjectMapper json, String option, String text) {
    ObjectNode check = json.createObjectNode();
    String t = text.strip();
    int colon = t.indexOf(':');
    String kind = colon < 0 ? t : t.substring(0, colon);
    String rest = colon < 0 ? "" : t.substring(colon + 1).strip();
    switch (kind) {
      case "guest-agent" -> check.put("guestAgent", true);
      case "tcp" -> check.putObject("tcp").put("port", rest);
      case "http" -> {
        int slash = rest.indexOf('/');
        ObjectNode http = check.putObject("http");
        http.put("port", slash < 0 ? rest : rest.substring(0, slash));
        if (slash >= 0) {
          http.put("path", rest.substring(slash));
        }
      }
      case "exec" -> {
        com.fasterxml.jackson.databind.node.ArrayNode command =
            check.putObject("exec").putArray("command");
        for (String word : rest.split("\\s+")) {
          if (!word.isEmpty()) {
            command.add(word);
          }
        }
      }
      default ->
          throw new CliException(
              ExitCodes.USAGE,
              option
                  + " "
                  + text
                  + " must be guest-agent, tcp:PORT, http:PORT[/PATH] or exec:COMMAND");
    }
    if (!kind.equals("guest-agent") && rest.isEmpty()) {
      throw new CliException(ExitCodes.USAGE, option + " " + text + " names nothing to check");
    }
    return check;
  }

  private ObjectNode read(ObjectMapper json, java.io.InputStream stdin) {
    if (!(readFile(file, json, stdin) instanceof ObjectNode o)) {
      throw new CliException(ExitCodes.USAGE, file + " is not a VM spec (a JSON or YAML object)");
    }
    return o;
  }

  /**
   * A JSON or YAML file ({@code -} for stdin) as a tree; YAML's scalars in a spec's string fields
   * taken as written ({@link #asWritten}), a VM set's template's too.
   */
  static JsonNode readFile(String file, ObjectMapper json, java.io.InputStream stdin) {
    try {
      byte[] bytes = file.equals("-") ? stdin.readAllBytes() : Files.readAllBytes(Path.of(file));
      String text = new String(bytes, java.nio.charset.StandardCharsets.UTF_8).strip();
      ObjectMapper reader = text.startsWith("{") ? json : new ObjectMapper(new YAMLFactory());
      JsonNode node = reader.readTree(text);
      if (reader != json && node != null) {
        List<JsonNode> specs = new java.util.ArrayList<>();
        node.path("items").forEach(specs::add);
        if (specs.isEmpty()) {
          specs.add(node);
        }
        for (JsonNode spec : specs) {
          if (spec instanceof ObjectNode o) {
            asWritten(o);
            if (o.get("template") instanceof ObjectNode template) {
              asWritten(template);
            }
          }
        }
      }
      return node;
    } catch (IOException e) {
      throw new CliException(
          ExitCodes.USAGE,
          "cannot read " + file + " (" + e.getMessage().lines().findFirst().orElse("") + ")");
    }
  }

  /**
   * YAML reads {@code command: [sleep, 3600]} with a number in it, and {@code FOO: yes} as true:
   * where a spec takes strings (its name, image, command, env and label values), a scalar is taken
   * as the user wrote it.
   */
  static void asWritten(ObjectNode spec) {
    for (String field : List.of("name", "image", "runtime", "restartPolicy")) {
      JsonNode value = spec.get(field);
      if (value != null && value.isValueNode() && !value.isNull() && !value.isTextual()) {
        spec.put(field, value.asText());
      }
    }
    if (spec.get("command") instanceof com.fasterxml.jackson.databind.node.ArrayNode command) {
      for (int i = 0; i < command.size(); i++) {
        JsonNode item = command.get(i);
        if (item.isValueNode() && !item.isNull() && !item.isTextual()) {
          command.set(i, com.fasterxml.jackson.databind.node.TextNode.valueOf(item.asText()));
        }
      }
    }
    for (String field : List.of("env", "labels")) {
      if (spec.get(field) instanceof ObjectNode map) {
        map.fields()
            .forEachRemaining(
                e -> {
                  if (e.getValue().isValueNode()
                      && !e.getValue().isNull()
                      && !e.getValue().isTextual()) {
                    e.setValue(
                        com.fasterxml.jackson.databind.node.TextNode.valueOf(
                            e.getValue().asText()));
                  }
                });
      }
    }
  }

  private static void putIfSet(ObjectNode spec, String field, String value) {
    if (value != null) {
      spec.put(field, value);
    }
  }
}
