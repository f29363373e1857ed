package dev.rota.api.paging;

import dev.rota.api.Limits;
import dev.rota.api.problem.Problems;
import io.micronaut.core.annotation.Nullable;
import java.util.LinkedHashMap;
import java.util.Map;

/**
 * {@code labelSelector=zone=a,disk=ssd}: Kubernetes' equality selector, every pair required. On VMs
 * it reads the labels a VM asks its worker to carry; on workers, those a worker carries.
 */
public record LabelSelector(Map<String, String> pairs) {
  public static final LabelSelector ANY = new LabelSelector(Map.of());

  /**
   * The document's pattern, exactly what is taken: comma-separated {@code key=value} pairs, each
   * key a label key, each value anything but a comma; empty for none.
   */
  public static final String PATTERN =
      "^(" + Limits.LABEL_KEY_BODY + "=[^,]*(," + Limits.LABEL_KEY_BODY + "=[^,]*)*)?$";

  /** From the query's text; a 400 naming {@code field} when it is not {@code key=value,…}. */
  public static LabelSelector parse(String field, @Nullable String text) {
    if (text == null || text.isEmpty()) {
      return ANY;
    }
    if (!text.matches(PATTERN)) {
      throw Problems.badRequest(
          field, "must be key=value pairs such as zone=a,disk=ssd, got \"" + text + "\"");
    }
    Map<String, String> pairs = new LinkedHashMap<>();
    for (String pair : text.split(",", -1)) {
      int eq = pair.indexOf('=');
      pairs.put(pair.substring(0, eq), pair.substring(eq + 1));
    }
    return new LabelSelector(pairs);
  }

  public boolean matches(Map<String, String> labels) {
    return pairs.entrySet().stream().allMatch(p -> p.getValue().equals(labels.get(p.getKey())));
  }
}
