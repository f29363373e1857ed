package dev.rota.agent.link;

import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.function.Consumer;

/**
 * What an agent says of its worker at registration beyond its settings: labels that placement can
 * select on, and notices, sentences a person reads on the worker about what it does less well than
 * asked (limits it cannot enforce, guests under software emulation). Some are known only after a
 * probe: those are added when the registration is sent, which waits for them.
 */
public final class WorkerFacts {
  /** What is said at one registration. */
  public record Said(Map<String, String> labels, List<String> notices) {
    public void label(String key, String value) {
      labels.put(key, value);
    }

    public void notice(String sentence) {
      notices.add(sentence);
    }
  }

  private final Said known = new Said(new LinkedHashMap<>(), new ArrayList<>());
  private final List<Consumer<Said>> late = new ArrayList<>();

  public void label(String key, String value) {
    known.label(key, value);
  }

  public void notice(String sentence) {
    known.notice(sentence);
  }

  /** Facts told by {@code teller} when the registration is sent, which waits for it. */
  public void later(Consumer<Said> teller) {
    late.add(teller);
  }

  /** Everything, the late facts included. */
  Said now() {
    Said all = new Said(new LinkedHashMap<>(known.labels()), new ArrayList<>(known.notices()));
    late.forEach(teller -> teller.accept(all));
    return all;
  }
}
