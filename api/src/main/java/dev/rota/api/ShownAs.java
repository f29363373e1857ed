package dev.rota.api;

import java.lang.annotation.ElementType;
import java.lang.annotation.Retention;
import java.lang.annotation.RetentionPolicy;
import java.lang.annotation.Target;

/**
 * On a request record: the view the API shows the same resource as. A body may carry the view's
 * fields (what {@code rota vm get -o yaml} printed, sent back), which the server owns and ignores;
 * any other field the request does not have is refused, naming it.
 */
@Retention(RetentionPolicy.RUNTIME)
@Target(ElementType.TYPE)
public @interface ShownAs {
  Class<? extends Record> value();
}
