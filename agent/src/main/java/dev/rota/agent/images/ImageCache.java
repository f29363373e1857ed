package dev.rota.agent.images;

import com.fasterxml.jackson.databind.ObjectMapper;
import dev.rota.agent.machine.JsonFiles;
import dev.rota.agent.machine.Tools;
import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.file.Files;
import java.nio.file.NoSuchFileException;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import java.nio.file.attribute.PosixFilePermissions;
import java.security.MessageDigest;
import java.security.NoSuchAlgorithmException;
import java.time.Clock;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.HashMap;
import java.util.HexFormat;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.ExecutionException;
import java.util.function.Consumer;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The worker's images: fetched from {@code https://}, {@code http://} or {@code file://} addresses,
 * or pulled from OCI registries ({@code oci://}, {@link OciRegistry}), kept once by content digest
 * (SHA-256) however many VMs use them, and never written (each VM writes to an overlay of its own).
 * An address may pin its content, {@code <address>@sha256:<hex>}: a pinned image already here is
 * not fetched at all, and one whose content differs is refused. Many VMs asking for one image at
 * once share one fetch. The cache is bounded: past its size the least recently used images that no
 * VM uses are removed. What it holds is what the worker reports it holds ({@link HeldImages}), so
 * that placement prefers workers that have a VM's image.
 */
public final class ImageCache {
  private static final Logger log = LoggerFactory.getLogger(ImageCache.class);
  private static final Pattern PINNED = Pattern.compile("^(.+)@sha256:([0-9a-f]{64})$");
  private static final byte[] QCOW2_MAGIC = {'Q', 'F', 'I', (byte) 0xfb};

  /**
   * A fetched image that does not fit its pin, cannot be fetched or is no address: the start fails
   * with this.
   */
  public static final class ImageException extends Exception {
    ImageException(String message) {
      super(message);
    }
  }

  /**
   * What a VM holds while it runs: the image's file, not to be removed until it is released; and
   * the guest's memory the image holds beside its disk ({@code memory}, saved on a machine of
   * {@code machine}), or null for a disk alone.
   */
  public record Lease(
      String image, String sha256, Path path, String format, Path memory, String machine) {}

  /** One stored image. */
  record Blob(long size, String format, long lastUsedMillis) {}

  /**
   * A guest's memory an image holds beside its disk (a snapshot of a suspended VM), stored as a
   * blob of its own, and the machine it was saved on.
   */
  public record Memory(String sha256, long size, String machine) {}

  /**
   * What the cache remembers on disk: which address gave which content, the contents, and the
   * memory each address holds with its disk.
   */
  record Index(Map<String, String> refs, Map<String, Blob> blobs, Map<String, Memory> memories) {}

  private final Path root;
  private final long maxBytes;
  private final ObjectMapper json;
  private final Clock clock;
  private final HeldImages held;
  private final HttpClientOnDemand http;
  private final OciRegistry registry;
  private final Map<String, String> refs = new TreeMap<>();
  private final Map<String, Blob> blobs = new TreeMap<>();
  private final Map<String, Memory> memories = new TreeMap<>();
  private final Map<String, Integer> inUse = new HashMap<>();
  private final Map<String, Fetch> fetching = new HashMap<>();

  /** One fetch under way, which every VM asking for the image meanwhile waits for and hears of. */
  private static final class Fetch {
    final CompletableFuture<String> done = new CompletableFuture<>();
    final List<Consumer<String>> listeners = new CopyOnWriteArrayList<>();

    void tell(String progress) {
      listeners.forEach(l -> l.accept(progress));
    }
  }

  public ImageCache(
      Path root,
      long maxBytes,
      ObjectMapper json,
      Clock clock,
      HeldImages held,
      OciRegistry registry) {
    this.registry = registry;
    this.root = root;
    this.maxBytes = maxBytes;
    this.json = json;
    this.clock = clock;
    this.held = held;
    this.http = new HttpClientOnDemand(HttpClient.Redirect.NORMAL);
    load();
  }

  /**
   * The image's file for a VM, fetched if it is not here; {@code progress} hears how a fetch goes
   * ({@code pulling 40% of 12 MiB}). Blocks until it is here.
   */
  public Lease acquire(String image, Consumer<String> progress)
      throws ImageException, InterruptedException {
    // An OCI reference's digest is its manifest's, checked by the registry's client, not the
    // disk's.
    Matcher pinned = PINNED.matcher(image);
    boolean content = pinned.matches() && !image.startsWith("oci://");
    String location = content ? pinned.group(1) : image;
    String pin = content ? pinned.group(2) : null;
    while (true) {
      Fetch fetch;
      boolean mine = false;
      synchronized (this) {
        String known = pin != null ? pin : refs.get(image);
        if (known != null
            && blobs.containsKey(known)
            && Files.exists(blobPath(known))
            && memoryHere(image)) {
          refs.put(image, known);
          return lease(image, known);
        }
        fetch = fetching.get(image);
        if (fetch == null) {
          fetch = new Fetch();
          fetching.put(image, fetch);
          mine = true;
        }
        fetch.listeners.add(progress);
      }
      if (mine) {
        fetchInto(image, location, pin, fetch);
      }
      try {
        String sha = fetch.done.get();
        synchronized (this) {
          if (blobs.containsKey(sha)) {
            return lease(image, sha);
          }
        }
        // Evicted between its fetch and this lease (a cache smaller than the images at once):
        // fetched again.
      } catch (ExecutionException e) {
        throw e.getCause() instanceof ImageException ie
            ? ie
            : new ImageException(String.valueOf(e.getCause()));
      } finally {
        fetch.listeners.remove(progress);
      }
    }
  }

  /** Keeps an image a VM found again after an agent restart uses. */
  public synchronized void retain(String sha256) {
    inUse.merge(sha256, 1, Integer::sum);
  }

  /** The VM no longer uses its image; it may now be evicted. */
  public synchronized void release(String sha256) {
    inUse.computeIfPresent(sha256, (k, n) -> n > 1 ? n - 1 : null);
    evict();
  }

  public synchronized Map<String, String> refs() {
    return new TreeMap<>(refs);
  }

  synchronized long bytes() {
    return blobs.values().stream().mapToLong(Blob::size).sum()
        + memories.values().stream().mapToLong(Memory::size).sum();
  }

  /** Whether the memory the image holds, if any, is here. */
  private boolean memoryHere(String image) {
    Memory m = memories.get(image);
    return m == null || Files.exists(blobPath(m.sha256()));
  }

  private Lease lease(String image, String sha) {
    Blob b = blobs.get(sha);
    blobs.put(sha, new Blob(b.size(), b.format(), clock.millis()));
    inUse.merge(sha, 1, Integer::sum);
    save();
    held.used(image);
    Memory m = memories.get(image);
    return new Lease(
        image,
        sha,
        blobPath(sha),
        b.format(),
        m == null ? null : blobPath(m.sha256()),
        m == null ? null : m.machine());
  }

  private void fetchInto(String image, String location, String pin, Fetch fetch) {
    Path part = null;
    Path memoryPart = null;
    try {
      Files.createDirectories(root.resolve("blobs"));
      part = Files.createTempFile(root, "fetch-", ".part");
      memoryPart = part.resolveSibling(part.getFileName() + ".memory.part");
      Memory[] memory = {null};
      String sha = download(location, part, fetch, memoryPart, memory);
      if (pin != null && !pin.equals(sha)) {
        throw new ImageException(
            "image " + location + " has content sha256:" + sha + ", not the pinned sha256:" + pin);
      }
      String format = format(part);
      readableByEveryGuest(part);
      synchronized (this) {
        admit(image, part, sha, format, memoryPart, memory[0]);
        fetching.remove(image);
        inUse.merge(sha, 1, Integer::sum); // held for the waiters until they lease it
        evict();
        save();
        fetch.done.complete(sha);
        inUse.computeIfPresent(sha, (k, n) -> n > 1 ? n - 1 : null);
      }
      log.info(
          "image {} fetched: sha256:{}, {} bytes, {}",
          location,
          sha,
          blobs.get(sha).size(),
          format);
    } catch (ImageException e) {
      failed(image, fetch, e);
    } catch (IOException e) {
      failed(
          image,
          fetch,
          new ImageException(
              "cannot fetch image " + location + ": " + Tools.firstLine(e.toString())));
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      failed(
          image, fetch, new ImageException("the fetch of image " + location + " was interrupted"));
    } finally {
      for (Path left : java.util.Arrays.asList(part, memoryPart)) {
        try {
          if (left != null) {
            Files.deleteIfExists(left);
          }
        } catch (IOException e) {
          // nothing more to do
        }
      }
    }
  }

  /**
   * Takes {@code part} in as blob {@code sha}, image {@code image}'s content, with {@code
   * memoryPart} as the guest's memory it holds ({@code memory}; null for none).
   */
  private synchronized void admit(
      String image, Path part, String sha, String format, Path memoryPart, Memory memory)
      throws IOException {
    if (memory == null) {
      memories.remove(image);
    } else {
      Path file = blobPath(memory.sha256());
      if (Files.exists(file)) {
        Files.delete(memoryPart);
      } else {
        Files.move(memoryPart, file, StandardCopyOption.ATOMIC_MOVE);
      }
      memories.put(image, memory);
    }
    if (Files.exists(blobPath(sha))) {
      // The same content under another address: the blob stays as it is, since a guest may be
      // opening it by path right now.
      Files.delete(part);
    } else {
      Files.move(part, blobPath(sha), StandardCopyOption.ATOMIC_MOVE);
    }
    blobs.put(sha, new Blob(Files.size(blobPath(sha)), format, clock.millis()));
    refs.put(image, sha);
  }

  /** The SHA-256 of {@code file}'s content, in hex: the name a cache gives its blob. */
  public static String sha256(Path file) throws IOException {
    MessageDigest digest;
    try {
      digest = MessageDigest.getInstance("SHA-256");
    } catch (java.security.NoSuchAlgorithmException e) {
      throw new IllegalStateException(e);
    }
    try (InputStream in = new java.security.DigestInputStream(Files.newInputStream(file), digest)) {
      in.transferTo(java.io.OutputStream.nullOutputStream());
    }
    return HexFormat.of().formatHex(digest.digest());
  }

  /** A file to make an image in, beside the blobs; {@link #keep} takes it in. */
  public Path newFile() throws IOException {
    Files.createDirectories(root.resolve("blobs"));
    // Named as a fetch's part: an agent killed while it makes one removes it when it starts.
    return Files.createTempFile(root, "fetch-", ".part");
  }

  /**
   * Takes {@code made} (a {@link #newFile}, whose {@link #sha256} is {@code sha}) in as image
   * {@code image}, as if it had been fetched from there: a VM started from that image on this
   * worker needs no fetch. {@code memoryMade} (another new file) is the guest's memory the image
   * holds, described by {@code memory}; both null for a disk alone.
   */
  public void keep(String image, Path made, String sha, Path memoryMade, Memory memory)
      throws IOException {
    String format = format(made);
    readableByEveryGuest(made);
    synchronized (this) {
      admit(image, made, sha, format, memoryMade, memory);
      evict();
      save();
    }
    held.used(image);
    log.info("image {} made here: sha256:{}, {}", image, sha, format);
  }

  private void failed(String image, Fetch fetch, ImageException e) {
    synchronized (this) {
      fetching.remove(image);
    }
    fetch.done.completeExceptionally(e);
  }

  /**
   * Copies the address's content to {@code to}; returns its SHA-256. The guest's memory an OCI
   * image holds beside its disk goes to {@code memoryTo}, described in {@code memory[0]}.
   */
  private String download(String location, Path to, Fetch fetch, Path memoryTo, Memory[] memory)
      throws IOException, ImageException, InterruptedException {
    URI uri;
    try {
      uri = URI.create(location);
    } catch (IllegalArgumentException e) {
      throw new ImageException("image " + location + " is not an address: " + e.getMessage());
    }
    String scheme = uri.getScheme() == null ? "" : uri.getScheme();
    switch (scheme) {
      case "file" -> {
        Path from = Path.of(uri);
        try (InputStream in = Files.newInputStream(from)) {
          return copy(in, Files.size(from), to, fetch);
        } catch (NoSuchFileException e) {
          throw new ImageException("image " + location + ": no such file on this worker");
        }
      }
      case "http", "https" -> {
        HttpResponse<InputStream> answer =
            http.get()
                .send(
                    HttpRequest.newBuilder(uri).GET().build(),
                    HttpResponse.BodyHandlers.ofInputStream());
        try (InputStream in = answer.body()) {
          if (answer.statusCode() != 200) {
            throw new ImageException("image " + location + " answered HTTP " + answer.statusCode());
          }
          return copy(
              in, answer.headers().firstValueAsLong("Content-Length").orElse(-1), to, fetch);
        }
      }
      case "oci" -> {
        return registry.pull(
            location,
            (in, size) -> copy(in, size, to, fetch),
            (in, size, machine) -> {
              String sha = copy(in, size, memoryTo, fetch);
              memory[0] = new Memory(sha, Files.size(memoryTo), machine);
              return sha;
            });
      }
      default ->
          throw new ImageException(
              "image " + location + " is not an https://, http://, file:// or oci:// address");
    }
  }

  private String copy(InputStream in, long size, Path to, Fetch fetch) throws IOException {
    MessageDigest sha;
    try {
      sha = MessageDigest.getInstance("SHA-256");
    } catch (NoSuchAlgorithmException e) {
      throw new IllegalStateException(e);
    }
    byte[] buffer = new byte[1 << 16];
    long copied = 0;
    FetchProgress progress = new FetchProgress(size);
    try (OutputStream out = Files.newOutputStream(to)) {
      int n;
      while ((n = in.read(buffer)) >= 0) {
        out.write(buffer, 0, n);
        sha.update(buffer, 0, n);
        copied += n;
        progress.after(copied, System.nanoTime()).ifPresent(fetch::tell);
      }
    }
    return HexFormat.of().formatHex(sha.digest());
  }

  private static String format(Path file) throws IOException {
    try (InputStream in = Files.newInputStream(file)) {
      byte[] head = in.readNBytes(4);
      return java.util.Arrays.equals(head, QCOW2_MAGIC) ? "qcow2" : "raw";
    }
  }

  /** Removes the least recently used images that no VM uses until the cache fits its size. */
  private void evict() {
    long total = bytes();
    if (total <= maxBytes) {
      return;
    }
    List<String> idle =
        new ArrayList<>(blobs.keySet().stream().filter(sha -> !inUse.containsKey(sha)).toList());
    idle.sort(
        Comparator.comparingLong((String sha) -> blobs.get(sha).lastUsedMillis())
            .thenComparing(sha -> sha));
    for (String sha : idle) {
      if (total <= maxBytes) {
        break;
      }
      Blob gone = blobs.remove(sha);
      total -= gone.size();
      try {
        Files.deleteIfExists(blobPath(sha));
      } catch (IOException e) {
        log.warn("cannot remove image sha256:{}: {}", sha, e.toString());
      }
      List<String> names =
          refs.entrySet().stream()
              .filter(e -> e.getValue().equals(sha))
              .map(Map.Entry::getKey)
              .toList();
      names.forEach(refs::remove);
      names.forEach(held::forget);
      for (String name : names) {
        Memory m = memories.remove(name);
        if (m != null && memories.values().stream().noneMatch(o -> o.sha256().equals(m.sha256()))) {
          total -= m.size();
          try {
            Files.deleteIfExists(blobPath(m.sha256()));
          } catch (IOException e) {
            log.warn("cannot remove memory sha256:{}: {}", m.sha256(), e.toString());
          }
        }
      }
      log.info(
          "image sha256:{} ({}) evicted: the cache holds {} of {} bytes",
          sha,
          String.join(", ", names),
          total,
          maxBytes);
    }
    save();
  }

  private Path blobPath(String sha) {
    return root.resolve("blobs").resolve(sha);
  }

  private void load() {
    // Fetches an agent killed mid-way left behind: nothing refers to them.
    try (var parts = Files.newDirectoryStream(root, "fetch-*.part")) {
      for (Path part : parts) {
        Files.deleteIfExists(part);
      }
    } catch (IOException e) {
      // no cache folder yet
    }
    Path file = root.resolve("index.json");
    if (!Files.exists(file)) {
      return;
    }
    try {
      Index index = json.readValue(file.toFile(), Index.class);
      index
          .blobs()
          .forEach(
              (sha, b) -> {
                try {
                  readableByEveryGuest(blobPath(sha)); // a cache an earlier agent made
                  blobs.put(sha, b);
                } catch (IOException e) {
                  // gone, or not the agent's own: fetched again when a VM needs it
                }
              });
      index
          .refs()
          .forEach(
              (image, sha) -> {
                if (blobs.containsKey(sha)) {
                  refs.put(image, sha);
                }
              });
      if (index.memories() != null) {
        index
            .memories()
            .forEach(
                (image, m) -> {
                  if (refs.containsKey(image)) {
                    memories.put(image, m);
                  }
                });
      }
    } catch (IOException | RuntimeException e) {
      log.warn("image index {} unreadable, starting an empty cache: {}", file, e.toString());
    }
  }

  /**
   * Every guest's user reads a blob (the backing file of each overlay made from it) and none writes
   * it.
   */
  private static void readableByEveryGuest(Path blob) throws IOException {
    Files.setPosixFilePermissions(blob, PosixFilePermissions.fromString("rw-r--r--"));
  }

  private void save() {
    try {
      Files.createDirectories(root);
      JsonFiles.writeWhole(json, root.resolve("index.json"), new Index(refs, blobs, memories));
    } catch (IOException e) {
      log.warn("cannot record the image index in {}: {}", root, e.toString());
    }
  }
}
