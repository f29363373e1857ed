package dev.rota.agent.machine;

import dev.rota.agentapi.PortSpec;
import dev.rota.agentapi.TaskSpec;
import java.io.IOException;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.net.ServerSocket;
import java.util.ArrayList;
import java.util.Collection;
import java.util.HashSet;
import java.util.List;
import java.util.Set;

/**
 * The worker's ports the agent gives tasks' named ports, as Nomad's client gives dynamic ports:
 * from a range of its own ({@code ROTA_AGENT_PORT_RANGE}, 20000-32000 by default), each one no task
 * of this agent holds and that nothing else on the machine listens on when it is chosen. A task
 * keeps its ports across an agent's restart (they are in its record).
 */
public final class HostPorts {
  private final String bindHost;
  private final int first;
  private final int last;

  /** Where the next search starts, so that a port just given up is not at once given again. */
  private int next;

  HostPorts(String bindHost, int first, int last) {
    if (first < 1 || last > 65535 || first > last) {
      throw new IllegalArgumentException("a port range within 1-65535, got " + first + "-" + last);
    }
    this.bindHost = bindHost;
    this.first = first;
    this.last = last;
    // Several agents may share a machine (dev mode's, tests'): each starts its search at a place
    // of its own, so that two seldom try the same free port before its task binds it.
    this.next = first + java.util.concurrent.ThreadLocalRandom.current().nextInt(last - first + 1);
  }

  /** {@code 20000-32000}, as ROTA_AGENT_PORT_RANGE gives it. */
  public static HostPorts parse(String bindHost, String range) {
    String[] ends = range.strip().split("-");
    if (ends.length != 2) {
      throw new IllegalArgumentException("a range such as 20000-32000, got " + range);
    }
    return new HostPorts(
        bindHost, Integer.parseInt(ends[0].strip()), Integer.parseInt(ends[1].strip()));
  }

  /** The address forwards listen on: the one the task API listens on. */
  public String bindHost() {
    return bindHost;
  }

  /**
   * {@code spec} with a worker's port for each named port that has none, none of them one that
   * {@code others} hold.
   *
   * @throws IllegalStateException when the range has too few free ports left
   */
  public synchronized TaskSpec assign(TaskSpec spec, Collection<TaskSpec> others) {
    if (spec.portsOrNone().isEmpty()) {
      return spec;
    }
    Set<Integer> held = new HashSet<>();
    for (TaskSpec other : others) {
      for (PortSpec p : other.portsOrNone()) {
        if (p.hostPort() != null) {
          held.add(p.hostPort());
        }
      }
    }
    List<PortSpec> chosen = new ArrayList<>();
    for (PortSpec p : spec.portsOrNone()) {
      if (p.hostPort() != null) {
        chosen.add(p);
        held.add(p.hostPort());
        continue;
      }
      int port = free(held);
      held.add(port);
      chosen.add(new PortSpec(p.name(), p.port(), port));
    }
    return spec.withPorts(List.copyOf(chosen));
  }

  private int free(Set<Integer> held) {
    int size = last - first + 1;
    for (int i = 0; i < size; i++) {
      int port = first + Math.floorMod(next - first + i, size);
      if (!held.contains(port) && bindable(port)) {
        next = port + 1 > last ? first : port + 1;
        return port;
      }
    }
    throw new IllegalStateException(
        "no free port left in this worker's range "
            + first
            + "-"
            + last
            + " (ROTA_AGENT_PORT_RANGE)");
  }

  private boolean bindable(int port) {
    try (ServerSocket s = new ServerSocket()) {
      s.setReuseAddress(true);
      s.bind(new InetSocketAddress(InetAddress.getByName(bindHost), port));
      return true;
    } catch (IOException e) {
      return false;
    }
  }
}
