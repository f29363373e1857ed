package dev.rota.api;

import java.lang.reflect.RecordComponent;
import java.util.Arrays;
import java.util.Collections;
import java.util.SortedSet;
import java.util.TreeSet;

/**
 * The fields a request record takes, and those of the view it is {@link ShownAs} that a body may
 * carry back to be ignored: the one rule the body reader enforces and the document states, worked
 * out once per record.
 */
public final class RequestFields {
  private static final ClassValue<SortedSet<String>> OWN =
      new ClassValue<>() {
        @Override
        protected SortedSet<String> computeValue(Class<?> type) {
          return names(type);
        }
      };

  private static final ClassValue<SortedSet<String>> SHOWN_ONLY =
      new ClassValue<>() {
        @Override
        protected SortedSet<String> computeValue(Class<?> type) {
          ShownAs shown = type.getAnnotation(ShownAs.class);
          SortedSet<String> names = shown == null ? new TreeSet<>() : names(shown.value());
          names.removeAll(OWN.get(type));
          return Collections.unmodifiableSortedSet(names);
        }
      };

  private RequestFields() {}

  /** The record's own fields, sorted. */
  public static SortedSet<String> own(Class<?> record) {
    return OWN.get(record);
  }

  /** The fields of the view it is shown as that it does not have itself: taken back, ignored. */
  public static SortedSet<String> shownOnly(Class<?> record) {
    return SHOWN_ONLY.get(record);
  }

  /** Whether a body for {@code record} may carry {@code field}. */
  public static boolean takes(Class<?> record, String field) {
    return OWN.get(record).contains(field) || SHOWN_ONLY.get(record).contains(field);
  }

  /**
   * The record's fields as JSON spells them: a component's {@code @JsonProperty}, else its name.
   */
  private static SortedSet<String> names(Class<?> record) {
    return new TreeSet<>(
        Arrays.stream(record.getRecordComponents()).map(RequestFields::jsonName).toList());
  }

  private static String jsonName(RecordComponent c) {
    com.fasterxml.jackson.annotation.JsonProperty named =
        c.getAccessor().getAnnotation(com.fasterxml.jackson.annotation.JsonProperty.class);
    return named == null ? c.getName() : named.value();
  }
}
