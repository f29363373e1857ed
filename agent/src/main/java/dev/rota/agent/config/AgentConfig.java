package dev.rota.agent.config;

import dev.rota.agent.machine.HostPorts;
import java.nio.file.Path;
import java.time.Duration;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import java.util.function.Function;

/**
 * How an agent runs, from {@code ROTA_*} environment variables or the matching flags ({@code
 * --controller-url=…} for {@code ROTA_CONTROLLER_URL}); a flag wins over a variable.
 *
 * @param controllerUrls the controller's hosts, in the order tried ({@code ROTA_CONTROLLER_URL},
 *     comma separated): the agent talks to one, and moves to the next when it stops answering
 * @param listenHost where the task API listens: loopback unless told otherwise
 * @param advertiseUrl what the controller calls; by default {@code https://listenHost:port} ({@code
 *     http} with {@code insecureHttp})
 * @param resources capacity; by default the machine's cores and memory in MiB
 * @param dataDir where tasks keep their working folders, logs and records (for adoption after
 *     restart)
 * @param stopGrace how long a stopped process gets between SIGTERM and SIGKILL
 * @param syntheticStartDelay how long a {@code synthetic} task takes to start
 * @param secret what a caller of the task API must present as its bearer token
 * @param insecureHttp the task API in plain HTTP ({@code ROTA_AGENT_INSECURE_HTTP=true}); else
 *     HTTPS
 * @param tlsCert the PEM certificate (chain) to serve HTTPS with ({@code ROTA_AGENT_TLS_CERT});
 *     null: the one the agent generated
 * @param tlsKey its PEM PKCS#8 private key ({@code ROTA_AGENT_TLS_KEY})
 * @param tlsKeystore where the agent keeps the certificate it generated ({@code
 *     ROTA_AGENT_TLS_KEYSTORE}, default {@code <dataDir>/tls/agent.p12}); agents given one file
 *     share one certificate
 * @param controllerCa a PEM certificate to trust for the controller's HTTPS ({@code
 *     ROTA_CONTROLLER_CA}); null: the JDK's trusted CAs
 * @param qemuAccel {@code auto} (KVM when a probe guest runs under it, else software emulation),
 *     {@code kvm} or {@code tcg} ({@code ROTA_AGENT_QEMU_ACCEL})
 * @param imageCacheBytes how much the image cache keeps before it evicts images no VM uses ({@code
 *     ROTA_AGENT_IMAGE_CACHE_SIZE}, e.g. {@code 20G})
 * @param portRange the worker's ports tasks' named ports are given from ({@code
 *     ROTA_AGENT_PORT_RANGE}, default {@code 20000-32000})
 * @param registryAuth the OCI registries' credentials, a Docker {@code config.json} ({@code
 *     ROTA_AGENT_REGISTRY_AUTH}); null: none
 * @param insecureRegistries registries pulled from over plain HTTP, besides those on loopback
 *     ({@code ROTA_AGENT_INSECURE_REGISTRIES}, {@code host:port,...})
 * @param guestUids the users guests' QEMU runs as, one per guest, {@code {first, last}} ({@code
 *     ROTA_AGENT_GUEST_UIDS}, default {@code 1879048192-1879113727}, a range no distribution gives
 *     out)
 * @param guestAllow what every guest of this worker may reach beyond the public internet ({@code
 *     ROTA_AGENT_GUEST_ALLOW}: CIDRs, addresses or host names, comma separated)
 */
public record AgentConfig(
    List<String> controllerUrls,
    String workerName,
    String listenHost,
    int port,
    String advertiseUrl,
    Map<String, String> labels,
    Map<String, Long> resources,
    List<String> runtimes,
    String token,
    String secret,
    Duration heartbeatInterval,
    Path dataDir,
    Duration stopGrace,
    Duration syntheticStartDelay,
    boolean insecureHttp,
    Path tlsCert,
    Path tlsKey,
    Path tlsKeystore,
    Path controllerCa,
    String qemuAccel,
    long imageCacheBytes,
    String portRange,
    Path registryAuth,
    List<String> insecureRegistries,
    int[] guestUids,
    List<String> guestAllow) {

  /** A setting that cannot be used; its message is the one line the agent prints. */
  /**
   * The worker's labels as {@code ROTA_WORKER_LABELS} gives them, with its pool ({@code
   * ROTA_WORKER_POOL}) as {@link dev.rota.agentapi.WorkerPool#LABEL} (the default pool's workers
   * carry none), and its taints ({@code ROTA_WORKER_TAINTS}, {@link dev.rota.agentapi.Taint}).
   */
  private static Map<String, String> labels(Map<String, String> s) {
    Map<String, String> labels =
        new TreeMap<>(
            pairs(s.getOrDefault("ROTA_WORKER_LABELS", ""), "ROTA_WORKER_LABELS", v -> v));
    String pool = s.getOrDefault("ROTA_WORKER_POOL", dev.rota.agentapi.WorkerPool.DEFAULT);
    if (!pool.matches(dev.rota.agentapi.WorkerPool.NAME)) {
      throw new BadSetting(
          "ROTA_WORKER_POOL=" + pool + " must be a pool's name: lowercase letters, digits and -");
    }
    if (!pool.equals(dev.rota.agentapi.WorkerPool.DEFAULT)) {
      labels.put(dev.rota.agentapi.WorkerPool.LABEL, pool);
    }
    for (String label : labels.keySet()) {
      if (label.startsWith(dev.rota.agentapi.Taint.PREFIX)) {
        throw new BadSetting(
            "ROTA_WORKER_LABELS: " + label + " carries a taint: give it in ROTA_WORKER_TAINTS");
      }
    }
    for (String written : s.getOrDefault("ROTA_WORKER_TAINTS", "").split(",")) {
      if (written.isBlank()) {
        continue;
      }
      dev.rota.agentapi.Taint taint;
      try {
        taint = dev.rota.agentapi.Taint.parse(written.strip());
      } catch (IllegalArgumentException e) {
        throw new BadSetting("ROTA_WORKER_TAINTS: " + e.getMessage());
      }
      if (labels.put(taint.label(), taint.labelValue()) != null) {
        throw new BadSetting(
            "ROTA_WORKER_TAINTS: " + taint.key() + " is given twice: one taint per key");
      }
    }
    return labels;
  }

  public static final class BadSetting extends RuntimeException {
    public BadSetting(String message) {
      super(message);
    }
  }

  public static AgentConfig from(Map<String, String> env, String[] args) {
    Map<String, String> s = new LinkedHashMap<>();
    env.forEach(
        (k, v) -> {
          if (k.startsWith("ROTA_")) {
            s.put(k, v);
          }
        });
    for (String arg : args) {
      if (!arg.startsWith("--") || !arg.contains("=")) {
        throw new BadSetting(
            "unknown argument " + arg + "; flags are --name=value, e.g. --worker-name=mini-1");
      }
      String name = arg.substring(2, arg.indexOf('='));
      s.put(
          name.equals("controller-url") || name.equals("worker-name") || name.startsWith("worker-")
              ? "ROTA_" + name.toUpperCase().replace('-', '_')
              : "ROTA_AGENT_" + name.toUpperCase().replace('-', '_'),
          arg.substring(arg.indexOf('=') + 1));
    }
    List<String> controllers = controllerUrls(required(s, "ROTA_CONTROLLER_URL"));
    String name = s.getOrDefault("ROTA_WORKER_NAME", hostName());
    if (!name.matches("^[a-z0-9]([a-z0-9-]{0,61}[a-z0-9])?$")) {
      throw new BadSetting(
          "ROTA_WORKER_NAME=" + name + " must be a DNS label (lowercase letters, digits, '-')");
    }
    String host = s.getOrDefault("ROTA_AGENT_LISTEN", "127.0.0.1");
    int port = parse(s, "ROTA_AGENT_PORT", "9101", Integer::parseInt, "a port number");
    if (port < 0 || port > 65535) {
      throw new BadSetting("ROTA_AGENT_PORT=" + port + " must be a port number from 0 to 65535");
    }
    Map<String, Long> resources = new TreeMap<>();
    resources.put("cpu", (long) Runtime.getRuntime().availableProcessors());
    resources.put("memory", machineMemoryMib());
    if (s.containsKey("ROTA_WORKER_RESOURCES")) {
      resources =
          new TreeMap<>(
              pairs(
                  s.get("ROTA_WORKER_RESOURCES"),
                  "ROTA_WORKER_RESOURCES",
                  v -> {
                    long n = Long.parseLong(v);
                    if (n < 0) {
                      throw new NumberFormatException();
                    }
                    return n;
                  }));
    }
    Path dataDir =
        Path.of(s.getOrDefault("ROTA_AGENT_DATA_DIR", ".rota-agent/" + name))
            .toAbsolutePath()
            .normalize();
    return new AgentConfig(
        controllers,
        name,
        host,
        port,
        s.get("ROTA_AGENT_ADVERTISE_URL"),
        labels(s),
        resources,
        List.of(s.getOrDefault("ROTA_WORKER_RUNTIMES", "process").split(",")),
        s.getOrDefault("ROTA_AGENT_TOKEN", ""),
        secret(s.get("ROTA_AGENT_SECRET")),
        parse(
            s,
            "ROTA_AGENT_HEARTBEAT_INTERVAL",
            "5s",
            AgentConfig::duration,
            "a duration such as 5s"),
        dataDir,
        parse(s, "ROTA_AGENT_STOP_GRACE", "10s", AgentConfig::duration, "a duration such as 10s"),
        parse(
            s,
            "ROTA_AGENT_SYNTHETIC_START_DELAY",
            "200ms",
            AgentConfig::duration,
            "a duration such as 200ms, or 0ms"),
        flag(s, "ROTA_AGENT_INSECURE_HTTP"),
        file(s, "ROTA_AGENT_TLS_CERT"),
        file(s, "ROTA_AGENT_TLS_KEY"),
        s.containsKey("ROTA_AGENT_TLS_KEYSTORE")
            ? Path.of(s.get("ROTA_AGENT_TLS_KEYSTORE")).toAbsolutePath().normalize()
            : dataDir.resolve("tls").resolve("agent.p12"),
        file(s, "ROTA_CONTROLLER_CA"),
        oneOf(s, "ROTA_AGENT_QEMU_ACCEL", "auto", java.util.List.of("auto", "kvm", "tcg")),
        parse(
            s,
            "ROTA_AGENT_IMAGE_CACHE_SIZE",
            "20G",
            AgentConfig::size,
            "a size such as 20G, 512M or 1T"),
        parse(
            s,
            "ROTA_AGENT_PORT_RANGE",
            "20000-32000",
            v -> {
              HostPorts.parse("127.0.0.1", v);
              return v.strip();
            },
            "a range of ports such as 20000-32000"),
        file(s, "ROTA_AGENT_REGISTRY_AUTH"),
        java.util.Arrays.stream(s.getOrDefault("ROTA_AGENT_INSECURE_REGISTRIES", "").split(","))
            .map(String::strip)
            .filter(r -> !r.isEmpty())
            .toList(),
        parse(
            s,
            "ROTA_AGENT_GUEST_UIDS",
            "1879048192-1879113727",
            AgentConfig::uidRange,
            "a range of uids such as 1879048192-1879113727, above 0"),
        parse(
            s,
            "ROTA_AGENT_GUEST_ALLOW",
            "",
            v -> {
              List<String> entries =
                  java.util.Arrays.stream(v.split(","))
                      .map(String::strip)
                      .filter(e -> !e.isEmpty())
                      .toList();
              entries.forEach(dev.rota.agentapi.EgressTarget::parse);
              return entries;
            },
            "CIDRs, addresses or host names, comma separated"));
  }

  /** {@code first-last}, both above 0 and within 32 bits. */
  private static int[] uidRange(String text) {
    String[] ends = text.strip().split("-");
    long first = Long.parseLong(ends[0].strip());
    long last = ends.length == 2 ? Long.parseLong(ends[1].strip()) : -1;
    if (ends.length != 2 || first <= 0 || last < first || last >= 0xFFFF_FFFFL) {
      throw new NumberFormatException(text);
    }
    return new int[] {(int) first, (int) last};
  }

  private static String oneOf(
      Map<String, String> s, String key, String fallback, List<String> allowed) {
    String v = s.getOrDefault(key, fallback).strip().toLowerCase();
    if (!allowed.contains(v)) {
      throw new BadSetting(key + "=" + v + " must be one of " + String.join(", ", allowed));
    }
    return v;
  }

  /**
   * Bytes from {@code 512M}, {@code 20G}, {@code 1T} (powers of 1024) or a plain number of bytes.
   */
  static long size(String text) {
    String t = text.strip().toUpperCase();
    int shift =
        switch (t.isEmpty() ? ' ' : t.charAt(t.length() - 1)) {
          case 'K' -> 10;
          case 'M' -> 20;
          case 'G' -> 30;
          case 'T' -> 40;
          default -> 0;
        };
    long n = Long.parseLong(shift == 0 ? t : t.substring(0, t.length() - 1));
    if (n <= 0 || n > (Long.MAX_VALUE >> shift)) {
      throw new NumberFormatException(text);
    }
    return n << shift;
  }

  /** The cross-field checks: a certificate and its key come together, and not with plain HTTP. */
  public AgentConfig {
    if ((tlsCert == null) != (tlsKey == null)) {
      throw new BadSetting(
          "ROTA_AGENT_TLS_CERT and ROTA_AGENT_TLS_KEY come together: the certificate and its private key");
    }
    if (advertiseUrl != null
        && !advertiseUrl.isBlank()
        && advertiseUrl.startsWith("https://") == insecureHttp) {
      throw new BadSetting(
          "ROTA_AGENT_ADVERTISE_URL="
              + advertiseUrl
              + " must be "
              + (insecureHttp ? "http" : "https")
              + ": the agent serves "
              + (insecureHttp
                  ? "plain HTTP (ROTA_AGENT_INSECURE_HTTP=true)"
                  : "HTTPS unless ROTA_AGENT_INSECURE_HTTP=true"));
    }
    if (insecureHttp && tlsCert != null) {
      throw new BadSetting(
          "ROTA_AGENT_INSECURE_HTTP=true and ROTA_AGENT_TLS_CERT contradict each other: choose one");
    }
  }

  private static boolean flag(Map<String, String> s, String key) {
    String v = s.getOrDefault(key, "false").strip().toLowerCase();
    if (!v.equals("true") && !v.equals("false")) {
      throw new BadSetting(key + "=" + v + " must be true or false");
    }
    return v.equals("true");
  }

  private static Path file(Map<String, String> s, String key) {
    String v = s.get(key);
    if (v == null || v.isBlank()) {
      return null;
    }
    Path path = Path.of(v).toAbsolutePath().normalize();
    if (!java.nio.file.Files.isReadable(path)) {
      throw new BadSetting(key + "=" + v + " is not a readable file");
    }
    return path;
  }

  /**
   * What the controller must present to call the task API: {@code ROTA_AGENT_SECRET}, or 256 random
   * bits chosen at start and sent with the registration.
   */
  private static String secret(String given) {
    if (given != null && !given.isBlank()) {
      if (given.length() < 20) {
        throw new BadSetting("ROTA_AGENT_SECRET must be at least 20 characters");
      }
      return given;
    }
    byte[] bytes = new byte[32];
    new java.security.SecureRandom().nextBytes(bytes);
    return java.util.Base64.getUrlEncoder().withoutPadding().encodeToString(bytes);
  }

  /** The URL the controller calls, once the port is known (0 means any free port). */
  public String endpoint(int boundPort) {
    return advertiseUrl != null && !advertiseUrl.isBlank()
        ? advertiseUrl
        : (insecureHttp ? "http://" : "https://") + listenHost + ":" + boundPort;
  }

  public static Duration duration(String text) {
    String t = text.strip().toLowerCase();
    if (t.endsWith("ms")) {
      return Duration.ofMillis(Long.parseLong(t.substring(0, t.length() - 2)));
    }
    long n = Long.parseLong(t.substring(0, t.length() - 1));
    return switch (t.charAt(t.length() - 1)) {
      case 's' -> Duration.ofSeconds(n);
      case 'm' -> Duration.ofMinutes(n);
      case 'h' -> Duration.ofHours(n);
      default -> throw new NumberFormatException(text);
    };
  }

  /** The controller's hosts: one URL, or several separated by commas, each http or https. */
  public static List<String> controllerUrls(String setting) {
    List<String> urls = new java.util.ArrayList<>();
    for (String part : setting.split(",")) {
      String url = part.strip();
      if (url.isEmpty()) {
        continue;
      }
      if (!url.startsWith("http://") && !url.startsWith("https://")) {
        throw new BadSetting(
            "ROTA_CONTROLLER_URL names "
                + url
                + ": each of its URLs must start with http:// or https://");
      }
      urls.add(url.endsWith("/") ? url.substring(0, url.length() - 1) : url);
    }
    if (urls.isEmpty()) {
      throw new BadSetting(
          "ROTA_CONTROLLER_URL="
              + setting
              + " names no URL; e.g. http://10.0.0.5:8080,http://10.0.0.6:8080");
    }
    return List.copyOf(urls);
  }

  private static String required(Map<String, String> s, String key) {
    String v = s.get(key);
    if (v == null || v.isBlank()) {
      throw new BadSetting(
          key + " is not set: the agent needs the controller's URL, e.g. http://127.0.0.1:8080");
    }
    return v;
  }

  /**
   * The durations that may be zero: a synthetic task may start as it is started (the load
   * harness's).
   */
  private static final java.util.Set<String> ZERO_ALLOWED =
      java.util.Set.of("ROTA_AGENT_SYNTHETIC_START_DELAY");

  private static <T> T parse(
      Map<String, String> s, String key, String fallback, Function<String, T> parser, String what) {
    String v = s.getOrDefault(key, fallback);
    try {
      T parsed = parser.apply(v);
      if (parsed instanceof Duration d
          && (d.isNegative() || (d.isZero() && !ZERO_ALLOWED.contains(key)))) {
        throw new NumberFormatException();
      }
      return parsed;
    } catch (RuntimeException e) {
      throw new BadSetting(key + "=" + v + " must be " + what);
    }
  }

  private static <T> Map<String, T> pairs(String text, String key, Function<String, T> value) {
    Map<String, T> map = new LinkedHashMap<>();
    for (String pair : text.split(",")) {
      if (pair.isBlank()) {
        continue;
      }
      int eq = pair.indexOf('=');
      if (eq <= 0) {
        throw new BadSetting(key + " must be k=v pairs separated by commas, got " + text);
      }
      try {
        map.put(pair.substring(0, eq).strip(), value.apply(pair.substring(eq + 1).strip()));
      } catch (RuntimeException e) {
        throw new BadSetting(key + ": " + pair + " has a value that is not a whole number from 0");
      }
    }
    return map;
  }

  private static String hostName() {
    String h = System.getenv().getOrDefault("HOSTNAME", "worker");
    return h.toLowerCase().replaceAll("[^a-z0-9-]", "-");
  }

  /** The machine's memory in MiB, as an agent offers it when not told otherwise. */
  public static long machineMemoryMib() {
    java.lang.management.OperatingSystemMXBean os =
        java.lang.management.ManagementFactory.getOperatingSystemMXBean();
    if (os instanceof com.sun.management.OperatingSystemMXBean sun) {
      return sun.getTotalMemorySize() / (1024 * 1024);
    }
    return Runtime.getRuntime().maxMemory() / (1024 * 1024);
  }
}
