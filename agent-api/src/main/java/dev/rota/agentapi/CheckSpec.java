package dev.rota.agentapi;

import java.util.List;

/**
 * A check its agent runs on a running VM, every {@code periodSeconds} from {@code
 * initialDelaySeconds} after it started: exactly one of {@code guestAgent}, {@code tcp}, {@code
 * http} and {@code exec}. It fails when it does not pass within {@code timeoutSeconds}; {@code
 * failureThreshold} failures in a row count.
 *
 * @param guestAgent true: the guest's QEMU guest agent answers ({@code qemu} VMs)
 * @param tcp a named port of the VM that takes connections
 * @param http a request to a named port of the VM, and the status it must answer
 * @param exec a command run in the VM (through the guest agent, or beside a {@code process}) that
 *     must exit 0
 */
public record CheckSpec(
    Boolean guestAgent,
    String tcp,
    HttpCheck http,
    List<String> exec,
    int initialDelaySeconds,
    int periodSeconds,
    int timeoutSeconds,
    int failureThreshold) {

  /**
   * {@code GET path} on the named port, answered with {@code status}.
   *
   * @param port a named port of the VM
   * @param path the request's path, from {@code /}
   * @param status the status that passes
   */
  public record HttpCheck(String port, String path, int status) {}

  /** The check in a few words, as an event or a failure names it: {@code tcp on port ssh}. */
  public String describe() {
    if (Boolean.TRUE.equals(guestAgent)) {
      return "guestAgent";
    }
    if (tcp != null) {
      return "tcp on port " + tcp;
    }
    if (http != null) {
      return "http GET " + http.path() + " on port " + http.port();
    }
    return "exec " + String.join(" ", exec == null ? List.of() : exec);
  }
}
