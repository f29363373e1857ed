package dev.rota.agentapi;

/**
 * A port a VM serves, by name: the controller asks for {@code port} in the guest, and the agent
 * that runs it chooses the worker's port that reaches it.
 *
 * @param name how the VM's spec, its view and a tunnel call it ({@code ssh}, {@code web})
 * @param port the port in the guest: a {@code qemu} VM's, forwarded from {@code hostPort}; a {@code
 *     process} listens on {@code hostPort} itself, told in {@code ROTA_PORT_<NAME>}
 * @param hostPort the worker's port, chosen by the agent when it takes the task; null until then
 */
public record PortSpec(String name, int port, Integer hostPort) {
  public PortSpec(String name, int port) {
    this(name, port, null);
  }

  /**
   * The variable a {@code process} task finds its port in: {@code ROTA_PORT_SSH} for {@code ssh}.
   */
  public String variable() {
    return "ROTA_PORT_" + name.toUpperCase(java.util.Locale.ROOT).replace('-', '_');
  }
}
