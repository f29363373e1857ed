package dev.rota.agentapi;

import java.util.List;
import java.util.Map;

/**
 * {@code PUT /v1/tasks/{id}}: the VM's spec, as the controller sends it and the agent runs it.
 *
 * @param restartCount the generation the task is of
 * @param image an image address ({@code https://…}, {@code file://…}, optionally
 *     {@code @sha256:<hex>}): the {@code qemu} runtime's boot disk; the {@code process} runtime has
 *     none
 * @param guest how a {@code qemu} guest is booted and configured; null for none
 * @param disconnect what its agent does with it when cut off from every controller host; null: stop
 *     it at the controller's fence
 * @param ports the ports it serves, by name; the agent fills in each {@code hostPort}; null or
 *     empty for none
 * @param submission the VM's submission number: a task id ({@code <vm>.<restartCount>}) is shared
 *     by every VM submitted under that name, and this tells a task of a VM deleted since from one
 *     of the VM submitted again; null from controllers that do not send it
 * @param network where a {@code qemu} guest may connect to; null for {@link NetworkSpec#DEFAULT}
 * @param checks its readiness and liveness checks, which its agent runs; null for none
 * @param secrets which of its values are secrets: the agent runs the task with them and writes
 *     {@link #withoutSecretValues() none of them} to its records; null for none
 * @param disk a {@code qemu} VM's root disk: whether it outlives the task, and its size; null for
 *     one that goes with the task, the image's size
 * @param resume whether a {@code qemu} VM resumes from the memory it saved on this worker when it
 *     was suspended, rather than booting; null for false
 * @param incoming whether a {@code qemu} VM arrives running from another worker, rather than
 *     booting: its QEMU waits, its disks made blank, for the agent there to send its disks and
 *     memory ({@link LiveMove}); null for false
 */
public record TaskSpec(
    String vm,
    int restartCount,
    String runtime,
    String image,
    List<String> command,
    Map<String, String> env,
    Map<String, Long> resources,
    GuestSpec guest,
    Disconnect disconnect,
    List<PortSpec> ports,
    Long submission,
    NetworkSpec network,
    Checks checks,
    SecretRefs secrets,
    DiskSpec disk,
    Boolean resume,
    Boolean incoming) {
  public TaskSpec(
      String vm,
      int restartCount,
      String runtime,
      String image,
      List<String> command,
      Map<String, String> env,
      Map<String, Long> resources,
      GuestSpec guest,
      Disconnect disconnect,
      List<PortSpec> ports,
      Long submission,
      NetworkSpec network,
      Checks checks,
      SecretRefs secrets,
      DiskSpec disk,
      Boolean resume) {
    this(
        vm,
        restartCount,
        runtime,
        image,
        command,
        env,
        resources,
        guest,
        disconnect,
        ports,
        submission,
        network,
        checks,
        secrets,
        disk,
        resume,
        null);
  }

  public TaskSpec(
      String vm,
      int restartCount,
      String runtime,
      String image,
      List<String> command,
      Map<String, String> env,
      Map<String, Long> resources,
      GuestSpec guest,
      Disconnect disconnect,
      List<PortSpec> ports,
      Long submission,
      NetworkSpec network,
      Checks checks,
      SecretRefs secrets) {
    this(
        vm,
        restartCount,
        runtime,
        image,
        command,
        env,
        resources,
        guest,
        disconnect,
        ports,
        submission,
        network,
        checks,
        secrets,
        null,
        null);
  }

  public TaskSpec(
      String vm,
      int restartCount,
      String runtime,
      String image,
      List<String> command,
      Map<String, String> env,
      Map<String, Long> resources,
      GuestSpec guest,
      Disconnect disconnect) {
    this(
        vm,
        restartCount,
        runtime,
        image,
        command,
        env,
        resources,
        guest,
        disconnect,
        null,
        null,
        null,
        null,
        null);
  }

  /** The same task with these ports (their host ports chosen). */
  public TaskSpec withPorts(List<PortSpec> chosen) {
    return new TaskSpec(
        vm,
        restartCount,
        runtime,
        image,
        command,
        env,
        resources,
        guest,
        disconnect,
        chosen,
        submission,
        network,
        checks,
        secrets,
        disk,
        resume,
        incoming);
  }

  /**
   * The same task with every secret's value left out (an environment variable's emptied, user data
   * or a startup script dropped): what may be written down. Its names stay, so a record still says
   * which parts were secret.
   */
  public TaskSpec withoutSecretValues() {
    if (SecretRefs.none(secrets)) {
      return this;
    }
    Map<String, String> shownEnv = env;
    if (env != null && !secrets.env().isEmpty()) {
      shownEnv = new java.util.TreeMap<>(env);
      for (String name : secrets.env().keySet()) {
        shownEnv.replace(name, "");
      }
    }
    GuestSpec shownGuest = guest;
    if (guest != null && (secrets.userData() != null || secrets.startupScript() != null)) {
      shownGuest =
          new GuestSpec(
              guest.kernel(),
              guest.initrd(),
              guest.kernelArgs(),
              secrets.userData() != null ? null : guest.userData(),
              guest.sshKeys(),
              secrets.startupScript() != null ? null : guest.startupScript());
    }
    return new TaskSpec(
        vm,
        restartCount,
        runtime,
        image,
        command,
        shownEnv,
        resources,
        shownGuest,
        disconnect,
        ports,
        submission,
        network,
        checks,
        secrets,
        disk,
        resume,
        incoming);
  }

  /** Whether it arrives running from another worker by a live move rather than booting. */
  public boolean arrives() {
    return Boolean.TRUE.equals(incoming);
  }

  /** Whether it resumes from saved memory rather than booting. */
  public boolean resumes() {
    return Boolean.TRUE.equals(resume);
  }

  /**
   * The name of what the VM keeps on its worker (its persistent disk, its saved memory), for its
   * task {@code taskId}: the same for every task of one VM submission, of the name its tasks carry
   * (a VM claimed from a pool keeps what its replica saved); null from controllers that send no
   * submission.
   */
  public String keepId(String taskId) {
    if (disk != null) {
      return disk.id();
    }
    return submission == null
        ? null
        : DiskSpec.idOf(TaskId.parse(taskId).map(TaskId::vm).orElse(vm), submission);
  }

  /** Where its guest may connect to: its own network, or the default. */
  public NetworkSpec networkOrDefault() {
    return NetworkSpec.orDefault(network);
  }

  /** Its ports, none when it has none. */
  public List<PortSpec> portsOrNone() {
    return ports == null ? List.of() : ports;
  }

  public TaskSpec(
      String vm,
      int restartCount,
      String runtime,
      String image,
      List<String> command,
      Map<String, String> env,
      Map<String, Long> resources,
      GuestSpec guest) {
    this(vm, restartCount, runtime, image, command, env, resources, guest, null);
  }

  public TaskSpec(
      String vm,
      int restartCount,
      String runtime,
      String image,
      List<String> command,
      Map<String, String> env,
      Map<String, Long> resources) {
    this(vm, restartCount, runtime, image, command, env, resources, null);
  }
}
