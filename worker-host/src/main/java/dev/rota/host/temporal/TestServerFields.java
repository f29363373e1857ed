package dev.rota.host.temporal;

import java.lang.reflect.Field;

/**
 * The embedded test server's private fields that Rota's fixes to it reach, each checked for the
 * type it relies on.
 */
final class TestServerFields {
  private TestServerFields() {}

  /**
   * {@code owner}'s field {@code name}, made accessible, if it holds a {@code type}; else why not.
   */
  static Field open(Class<?> owner, String name, Class<?> type) throws NoSuchFieldException {
    Field field = owner.getDeclaredField(name);
    if (!type.isAssignableFrom(field.getType())) {
      throw new NoSuchFieldException(
          owner.getSimpleName()
              + "."
              + name
              + " is a "
              + field.getType().getName()
              + ", not a "
              + type.getName());
    }
    field.setAccessible(true);
    return field;
  }
}
