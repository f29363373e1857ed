package dev.rota.cli;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import java.util.ArrayList;
import java.util.List;
import picocli.CommandLine.Command;
import picocli.CommandLine.Parameters;

/** {@code rota context ...}: named servers and tokens in the config file. */
@Command(
    name = "context",
    description =
        "Named servers and tokens, kept in the config file ($ROTA_CONFIG or ~/.config/rota/config.json).")
final class ContextCommands extends Noun {
  /** Its server and token are the global --server and --token: here they are saved, not used. */
  @Command(
      name = "set",
      description =
          "Add or replace a context: rota context set prod --server https://rota.example --token …")
  int set(
      @Parameters(paramLabel = "NAME") String name,
      @picocli.CommandLine.Option(
              names = "--ssh-key",
              paramLabel = "FILE",
              description =
                  "the SSH key qemu VMs created in this context get (vm create --ssh-key), and vm"
                      + " ssh logs in with")
          String sshKey,
      @picocli.CommandLine.Option(
              names = {"-n", "--namespace"},
              paramLabel = "NAMESPACE",
              description =
                  "the namespace creates and lists are in when they name none (-n) or every one"
                      + " (-A)")
          String namespace) {
    if (root.server == null) {
      throw new CliException(
          ExitCodes.USAGE,
          "rota context set " + name + " needs --server URL (and --token TOKEN when auth is on)");
    }
    Contexts file = root.contexts();
    if (sshKey != null) {
      SshKeys.read(sshKey, "--ssh-key"); // a key that cannot be read is refused now, not at use
    }
    file.set(
        name,
        root.server,
        root.token,
        sshKey == null
            ? null
            : SshKeys.publicKey(java.nio.file.Path.of(sshKey)).toAbsolutePath().toString(),
        namespace);
    root.output()
        .say(
            "context "
                + name
                + " saved in "
                + file.file()
                + (name.equals(file.current()) ? " (in use)" : ""));
    return ExitCodes.OK;
  }

  @Command(name = "use", description = "Make a context the one in use.")
  int use(@Parameters(paramLabel = "NAME") String name) {
    root.contexts().use(name);
    root.output().say("using context " + name);
    return ExitCodes.OK;
  }

  @Command(
      name = "list",
      description = "The contexts, the one in use marked; tokens are not shown.")
  int list() {
    Contexts file = root.contexts();
    String current = file.current();
    List<JsonNode> rows = new ArrayList<>();
    for (Context c : file.all()) {
      ObjectNode row = root.json.createObjectNode();
      row.put("current", c.name().equals(current) ? "*" : "");
      row.put("name", c.name());
      row.put("server", c.server());
      row.put("namespace", c.namespace());
      row.put("token", c.token() == null ? "none" : "set");
      rows.add(row);
    }
    root.output()
        .list(
            "contexts",
            rows,
            List.of(
                Output.Column.field("CURRENT", "current"),
                Output.Column.field("NAME", "name"),
                Output.Column.field("SERVER", "server"),
                Output.Column.field("NAMESPACE", "namespace"),
                Output.Column.field("TOKEN", "token")));
    return ExitCodes.OK;
  }

  @Command(name = "delete", description = "Remove a context.")
  int delete(@Parameters(paramLabel = "NAME") String name) {
    root.contexts().delete(name);
    root.output().say("context " + name + " deleted");
    return ExitCodes.OK;
  }
}
