package dev.rota.cli;

import com.fasterxml.jackson.databind.DeserializationFeature;
import com.fasterxml.jackson.databind.ObjectMapper;
import dev.rota.agentapi.RotaBuild;
import java.io.OutputStreamWriter;
import java.io.PrintWriter;
import java.nio.charset.StandardCharsets;
import java.time.Clock;
import java.util.Map;
import picocli.CommandLine;
import picocli.CommandLine.Command;
import picocli.CommandLine.Option;
import picocli.CommandLine.ScopeType;

/**
 * {@code rota}: the operator's command line, a client of the REST API. Nouns then verbs, as kubectl
 * and nomad have them: {@code rota vm create}, {@code rota worker pause}.
 */
@Command(
    name = "rota",
    // Inherited: every noun and verb takes --help and --version, and shows the footer.
    scope = ScopeType.INHERIT,
    mixinStandardHelpOptions = true,
    versionProvider = RotaCli.Version.class,
    description =
        "Drive a Rota scheduler: VMs, workers, VM sets, images, the cluster, service accounts.",
    subcommands = {
      VmCommands.class,
      WorkerCommands.class,
      VmSetCommands.class,
      PoolCommands.class,
      ImageCommands.class,
      ClusterCommands.class,
      AccountCommands.class,
      SecretCommands.class,
      NamespaceCommands.class,
      TemplateCommands.class,
      ScheduleCommands.class,
      VolumeCommands.class,
      ContextCommands.class,
      ApplyCommand.class,
      RotaCli.VersionCommand.class,
      RotaCli.CompletionCommand.class,
      CommandLine.HelpCommand.class
    },
    footer = {
      "",
      "From a checkout, ./rota also runs the rest: ./rota dev (dev mode), ./rota server",
      "(a production host), ./rota agent (an agent); each takes --help.",
      "",
      "Server and token: --server/--token, else ROTA_SERVER/ROTA_TOKEN, else the",
      "current context (rota context), else http://127.0.0.1:8080 without a token.",
      "Exit codes: 0 done, 1 failed, 2 bad input, 3 not found, 4 conflict,",
      "5 denied, 6 server unreachable, 7 --wait timed out, 8 --wait saw it fail."
    })
public final class RotaCli implements Runnable {
  @Option(
      names = "--server",
      scope = ScopeType.INHERIT,
      paramLabel = "URL",
      description = "the Rota API, e.g. http://127.0.0.1:8080")
  String server;

  @Option(
      names = "--token",
      scope = ScopeType.INHERIT,
      paramLabel = "TOKEN",
      description = "a service account's token")
  String token;

  @Option(
      names = "--context",
      scope = ScopeType.INHERIT,
      paramLabel = "NAME",
      description = "a context from the config file")
  String context;

  @Option(
      names = {"-o", "--output"},
      scope = ScopeType.INHERIT,
      paramLabel = "FORMAT",
      description = "table (default), wide (more columns), name (names alone), json or yaml")
  Output.Format format = Output.Format.TABLE;

  final Map<String, String> env;
  final PrintWriter out;
  final PrintWriter err;
  final ObjectMapper json =
      new ObjectMapper().configure(DeserializationFeature.FAIL_ON_UNKNOWN_PROPERTIES, false);
  final Clock clock;
  final Pause pause;
  private final boolean terminal;

  /** How a wait passes time between polls; tests pass none. */
  interface Pause {
    void sleep(long millis) throws InterruptedException;
  }

  RotaCli(
      Map<String, String> env,
      PrintWriter out,
      PrintWriter err,
      Clock clock,
      Pause pause,
      boolean terminal) {
    this.env = env;
    this.out = out;
    this.err = err;
    this.clock = clock;
    this.pause = pause;
    this.terminal = terminal;
  }

  public static void main(String[] args) {
    PrintWriter out =
        new PrintWriter(new OutputStreamWriter(System.out, StandardCharsets.UTF_8), true);
    PrintWriter err =
        new PrintWriter(new OutputStreamWriter(System.err, StandardCharsets.UTF_8), true);
    System.exit(
        run(
            args,
            System.getenv(),
            out,
            err,
            Clock.systemUTC(),
            Thread::sleep,
            System.console() != null));
  }

  /**
   * Runs one command line; what it prints goes to {@code out} and {@code err}; answers the exit
   * code.
   */
  static int run(
      String[] args,
      Map<String, String> env,
      PrintWriter out,
      PrintWriter err,
      Clock clock,
      Pause pause,
      boolean terminal) {
    RotaCli root = new RotaCli(env, out, err, clock, pause, terminal);
    CommandLine cli = new CommandLine(root);
    cli.setOut(out);
    cli.setErr(err);
    cli.setCaseInsensitiveEnumValuesAllowed(true);
    cli.setExecutionExceptionHandler(
        (e, line, parsed) -> {
          if (e instanceof CliException c) {
            err.println("rota: " + c.getMessage());
            return c.exitCode();
          }
          err.println("rota: " + e);
          return ExitCodes.FAILED;
        });
    cli.setParameterExceptionHandler(
        (e, a) -> {
          err.println(
              "rota: "
                  + UsageMessages.plain(e.getMessage().lines().findFirst().orElse(""))
                  + " (see "
                  + e.getCommandLine().getCommandSpec().qualifiedName()
                  + " --help)");
          return ExitCodes.USAGE;
        });
    int code =
        cli.execute(
            SshArguments.delimited(
                cli.getSubcommands().get("vm").getSubcommands().get("ssh").getCommandSpec(), args));
    out.flush();
    err.flush();
    return code;
  }

  /** {@code rota} alone: what it can do. */
  @Override
  public void run() {
    new CommandLine(this).usage(out);
  }

  Contexts contexts() {
    return new Contexts(Contexts.file(env), json);
  }

  ApiClient api() {
    return new ApiClient(contexts().resolve(context, server, token, env), json);
  }

  Output output() {
    return new Output(format, out, err, json);
  }

  Waiter waiter(java.time.Duration timeout) {
    return new Waiter(err, clock, pause, terminal, timeout);
  }

  /** Whether it prints to a terminal (a person), rather than a pipe or a file. */
  boolean terminal() {
    return terminal;
  }

  /** The version from the jar's manifest. */
  /** {@code rota completion}: the shell completion script, as kubectl and nomad print theirs. */
  @Command(
      name = "completion",
      description = {
        "Print the completion script for bash (zsh too, after bashcompinit).",
        "Load it with: source <(rota completion)"
      })
  static final class CompletionCommand implements Runnable {
    @picocli.CommandLine.Spec picocli.CommandLine.Model.CommandSpec spec;

    @Override
    public void run() {
      spec.commandLine()
          .getOut()
          .print(picocli.AutoComplete.bash("rota", spec.root().commandLine()));
      spec.commandLine().getOut().flush();
    }
  }

  /**
   * {@code rota version}: the CLI's build as {@code --version} says it, then the server's, as
   * kubectl has it; a server out of reach is said, not an error, since the CLI's own answer stands.
   */
  @Command(
      name = "version",
      description = "Print the CLI's version and commit, and the server's when it answers.")
  static final class VersionCommand implements Runnable {
    @picocli.CommandLine.Spec picocli.CommandLine.Model.CommandSpec spec;
    @picocli.CommandLine.ParentCommand RotaCli root;

    @Override
    public void run() {
      var out = spec.commandLine().getOut();
      for (String line : new Version().getVersion()) {
        out.println(line);
      }
      String server;
      try {
        var cluster = root.api().get("/v1/cluster");
        server =
            "server "
                + new RotaBuild(
                        cluster.path("version").asText("unknown"),
                        cluster.path("commit").isTextual() ? cluster.path("commit").asText() : null)
                    .described();
      } catch (CliException e) {
        server = "server unknown: " + e.getMessage();
      }
      out.println(server);
    }
  }

  static final class Version implements CommandLine.IVersionProvider {
    @Override
    public String[] getVersion() {
      return new String[] {"rota " + RotaBuild.current().described()};
    }
  }
}
