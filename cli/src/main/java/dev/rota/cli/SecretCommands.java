package dev.rota.cli;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import picocli.CommandLine.Command;
import picocli.CommandLine.Mixin;
import picocli.CommandLine.Option;
import picocli.CommandLine.Parameters;

/**
 * {@code rota secret ...}: values VMs refer to by name. A value is read from a file or stdin, never
 * from the command line, where the shell's history and {@code ps} would keep it.
 */
@Command(
    name = "secret",
    description = "Create, replace, list and delete secrets; no command shows a value.")
final class SecretCommands extends Noun {
  static final List<Output.Column> COLUMNS =
      List.of(
          Output.Column.field("NAME", "name"),
          Output.Column.field("NAMESPACE", "namespace"),
          Output.Column.field("CREATED", "createdAt"),
          Output.Column.field("UPDATED", "updatedAt"));

  static String path(String name) {
    return "/v1/secrets/" + ApiClient.segment(name);
  }

  @Command(name = "create", description = "Create a secret from a file, or stdin.")
  int create(
      @Parameters(paramLabel = "NAME") String name,
      @Mixin ValueSource source,
      @Option(
              names = {"-n", "--namespace"},
              paramLabel = "NAMESPACE",
              description =
                  "the namespace whose VMs may refer to it (default: the context's, else default)")
          String namespace) {
    Map<String, Object> body = new LinkedHashMap<>();
    body.put("name", name);
    body.put("value", source.value());
    String in = namespace != null ? namespace : root.api().context().namespace();
    if (in != null) {
      body.put("namespace", in);
    }
    return shown(root.api().post("/v1/secrets", body), COLUMNS);
  }

  @Command(name = "set", description = "Give a secret a new value, from a file or stdin.")
  int set(@Parameters(paramLabel = "NAME") String name, @Mixin ValueSource source) {
    return shown(root.api().put(path(name), Map.of("value", source.value())), COLUMNS);
  }

  @Command(name = "list", description = "List secrets by name.")
  int list(@Mixin NamespaceFilter inNamespace) {
    return listedIn("secrets", "/v1/secrets", inNamespace.namespace(root.api().context()), COLUMNS);
  }

  @Command(name = "get", description = "Show a secret's name and times.")
  int get(@Parameters(paramLabel = "NAME") String name) {
    return shown(root.api().get(path(name)), COLUMNS);
  }

  @Command(name = "delete", description = "Delete a secret; VMs that refer to it cannot start.")
  int delete(@Parameters(paramLabel = "NAME") String name) {
    root.api().delete(path(name));
    root.output().say("secret " + name + " deleted");
    return ExitCodes.OK;
  }

  /** Where a secret's value is read from: a file, or stdin. */
  static final class ValueSource {
    @Option(
        names = "--from-file",
        paramLabel = "FILE",
        description = "the value's file; - (the default) reads stdin")
    String file;

    String value() {
      try {
        return file == null || file.equals("-")
            ? new String(System.in.readAllBytes(), StandardCharsets.UTF_8)
            : Files.readString(Path.of(file), StandardCharsets.UTF_8);
      } catch (java.nio.file.NoSuchFileException e) {
        throw new CliException(
            ExitCodes.USAGE, "cannot read the secret's value from " + file + ": no such file");
      } catch (IOException e) {
        throw new CliException(
            ExitCodes.USAGE, "cannot read the secret's value from " + file + ": " + e.getMessage());
      }
    }
  }
}
