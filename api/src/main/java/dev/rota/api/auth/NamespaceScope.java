package dev.rota.api.auth;

import java.lang.annotation.Documented;
import java.lang.annotation.ElementType;
import java.lang.annotation.Retention;
import java.lang.annotation.RetentionPolicy;
import java.lang.annotation.Target;

/**
 * A route acting in one namespace, which a caller holding its {@link RequiresRole} role there only
 * may call. A route without it takes the role in every namespace.
 */
@Documented
@Retention(RetentionPolicy.RUNTIME)
@Target({ElementType.METHOD})
public @interface NamespaceScope {
  /** Where the namespace is. */
  From value();

  enum From {
    /** The namespace of the VM its path names. */
    VM,
    /** The namespace of the set or pool its path names. */
    VM_SET,
    TEMPLATE,
    SECRET,
    /** The namespace its path names. */
    NAMESPACE,
    /** A list's {@code namespace} parameter, which such a caller must give. */
    QUERY,
    /** Its body: the service checks it, once it knows the namespace ({@link Caller#require}). */
    BODY
  }
}
