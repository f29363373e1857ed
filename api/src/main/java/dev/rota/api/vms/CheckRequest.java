package dev.rota.api.vms;

import dev.rota.agentapi.CheckSpec;
import dev.rota.api.Durations;
import dev.rota.api.problem.Problems;
import io.micronaut.core.annotation.Nullable;
import io.micronaut.serde.annotation.Serdeable;
import jakarta.validation.Valid;
import jakarta.validation.constraints.Max;
import jakarta.validation.constraints.Min;
import jakarta.validation.constraints.NotNull;
import jakarta.validation.constraints.Pattern;
import jakarta.validation.constraints.Size;
import java.util.List;
import java.util.Set;

/**
 * A VM's {@code readiness} or {@code liveness} check, as Kubernetes' probes: exactly one of {@code
 * guestAgent} (true: the QEMU guest agent answers; {@code qemu} VMs), {@code tcp} (a named port
 * takes connections), {@code http} (a GET on a named port answers {@code status}, 200 by default)
 * and {@code exec} (a command run in the VM exits 0); run every {@code period} (10s) from {@code
 * initialDelay} (0s) after the VM started, failing when it does not pass within {@code timeout}
 * (1s); {@code failureThreshold} (3) failures in a row count.
 */
@Serdeable
// A misspelt field would be a check other than the one meant: refused, not ignored.
@com.fasterxml.jackson.annotation.JsonIgnoreProperties(ignoreUnknown = false)
public record CheckRequest(
    @Nullable Boolean guestAgent,
    @Nullable @Valid Tcp tcp,
    @Nullable @Valid Http http,
    @Nullable @Valid Exec exec,
    @Nullable @Pattern(regexp = Durations.PATTERN_OR_ZERO, message = Durations.MESSAGE + ", or 0s")
        String initialDelay,
    @Nullable @Pattern(regexp = Durations.PATTERN, message = Durations.MESSAGE) String period,
    @Nullable @Pattern(regexp = Durations.PATTERN, message = Durations.MESSAGE) String timeout,
    @Nullable @Min(1) @Max(100) Integer failureThreshold) {

  static final int DEFAULT_PERIOD = 10;
  static final int DEFAULT_TIMEOUT = 1;
  static final int DEFAULT_FAILURE_THRESHOLD = 3;

  /** A named port that takes connections. */
  @Serdeable
  @com.fasterxml.jackson.annotation.JsonIgnoreProperties(ignoreUnknown = false)
  public record Tcp(
      @NotNull @Pattern(regexp = PortRequest.NAME, message = "must be a port name such as ssh")
          String port) {}

  /** {@code GET path} on a named port, answered with {@code status}. */
  @Serdeable
  @com.fasterxml.jackson.annotation.JsonIgnoreProperties(ignoreUnknown = false)
  public record Http(
      @NotNull @Pattern(regexp = PortRequest.NAME, message = "must be a port name such as web")
          String port,
      @Nullable
          @Size(max = 2048)
          @Pattern(regexp = "^/[!-~]*$", message = "must be a path from /, such as /healthz")
          String path,
      @Nullable @Min(100) @Max(599) Integer status) {}

  /** A command run in the VM, which must exit 0. */
  @Serdeable
  @com.fasterxml.jackson.annotation.JsonIgnoreProperties(ignoreUnknown = false)
  public record Exec(
      @NotNull @Size(min = 1, max = 64) List<@NotNull @Size(max = 4096) String> command) {}

  /**
   * The check as its agent runs it, defaults filled in; {@code field} names it ({@code readiness}),
   * {@code ports} are the VM's named ports, which {@code tcp} and {@code http} must name, and only
   * a {@code qemu} VM has a guest agent.
   */
  CheckSpec spec(String field, String runtime, Set<String> ports) {
    int kinds =
        (Boolean.TRUE.equals(guestAgent) ? 1 : 0)
            + (tcp == null ? 0 : 1)
            + (http == null ? 0 : 1)
            + (exec == null ? 0 : 1);
    if (kinds != 1 || Boolean.FALSE.equals(guestAgent)) {
      throw Problems.badRequest(
          field,
          "must say one thing to check: guestAgent (true), tcp, http or exec; it says "
              + (kinds == 0 ? "none" : kinds + " of them"));
    }
    if (guestAgent != null && !VmService.QEMU.equals(runtime)) {
      throw Problems.badRequest(
          field + ".guestAgent",
          "is a qemu guest's QEMU guest agent; the " + runtime + " runtime has none");
    }
    String port = tcp != null ? tcp.port() : http != null ? http.port() : null;
    if (port != null && !ports.contains(port)) {
      throw Problems.badRequest(
          field + (tcp != null ? ".tcp.port" : ".http.port"),
          "\""
              + port
              + "\" is not a port the VM names"
              + (ports.isEmpty() ? " (it names none: see ports)" : ", which are " + ports));
    }
    return new CheckSpec(
        guestAgent,
        tcp == null ? null : tcp.port(),
        http == null
            ? null
            : new CheckSpec.HttpCheck(
                http.port(),
                http.path() == null ? "/" : http.path(),
                http.status() == null ? 200 : http.status()),
        exec == null ? null : List.copyOf(exec.command()),
        initialDelay == null ? 0 : Durations.seconds(field + ".initialDelay", initialDelay, true),
        period == null ? DEFAULT_PERIOD : Durations.seconds(field + ".period", period, false),
        timeout == null ? DEFAULT_TIMEOUT : Durations.seconds(field + ".timeout", timeout, false),
        failureThreshold == null ? DEFAULT_FAILURE_THRESHOLD : failureThreshold);
  }

  /** A check as a VM's view shows it: in the form a request takes it back. */
  static CheckRequest of(CheckSpec spec) {
    if (spec == null) {
      return null;
    }
    return new CheckRequest(
        spec.guestAgent(),
        spec.tcp() == null ? null : new Tcp(spec.tcp()),
        spec.http() == null
            ? null
            : new Http(spec.http().port(), spec.http().path(), spec.http().status()),
        spec.exec() == null ? null : new Exec(spec.exec()),
        Durations.of(spec.initialDelaySeconds()),
        Durations.of(spec.periodSeconds()),
        Durations.of(spec.timeoutSeconds()),
        spec.failureThreshold());
  }
}
