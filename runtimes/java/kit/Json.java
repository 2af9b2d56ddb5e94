package concbench.kit;

import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/**
 * The little JSON the protocol needs, strictly (RFC 8259): {@link #parse} reads a request into
 * maps, lists, strings, {@code Long} (integers), {@code Double} (other numbers), booleans and null;
 * {@link #write} writes an answer made of the same. The standard library has no JSON, and the
 * messages are small and flat: a dependency would weigh more than these hundred lines.
 */
public final class Json {
  private final String text;
  private int at;

  private Json(String text) {
    this.text = text;
  }

  /** The one JSON value {@code text} holds, whitespace around it allowed. */
  public static Object parse(String text) {
    Json reader = new Json(text);
    Object value = reader.value();
    reader.skipWhitespace();
    if (reader.at != text.length()) {
      throw reader.error("text after the value");
    }
    return value;
  }

  private Object value() {
    skipWhitespace();
    if (at == text.length()) {
      throw error("end of input where a value was expected");
    }
    return switch (text.charAt(at)) {
      case '{' -> object();
      case '[' -> array();
      case '"' -> string();
      case 't' -> literal("true", Boolean.TRUE);
      case 'f' -> literal("false", Boolean.FALSE);
      case 'n' -> literal("null", null);
      default -> number();
    };
  }

  private Map<String, Object> object() {
    Map<String, Object> members = new LinkedHashMap<>();
    at++;
    if (skipWhitespace() == '}') {
      at++;
      return members;
    }
    do {
      skipWhitespace();
      String key = string();
      expect(':');
      members.put(key, value());
    } while (separator('}'));
    return members;
  }

  private List<Object> array() {
    List<Object> elements = new ArrayList<>();
    at++;
    if (skipWhitespace() == ']') {
      at++;
      return elements;
    }
    do {
      elements.add(value());
    } while (separator(']'));
    return elements;
  }

  /** After a member or element: true for a comma, false for the closing bracket. */
  private boolean separator(char closing) {
    char next = skipWhitespace();
    at++;
    if (next == ',') {
      return true;
    }
    if (next != closing) {
      throw error("expected ',' or '" + closing + "'");
    }
    return false;
  }

  private String string() {
    expect('"');
    StringBuilder out = new StringBuilder();
    while (true) {
      char c = next();
      if (c == '"') {
        return out.toString();
      }
      if (c < 0x20) {
        throw error("a control character in a string");
      }
      out.append(c == '\\' ? escaped() : c);
    }
  }

  private char escaped() {
    char c = next();
    return switch (c) {
      case '"', '\\', '/' -> c;
      case 'b' -> '\b';
      case 'f' -> '\f';
      case 'n' -> '\n';
      case 'r' -> '\r';
      case 't' -> '\t';
      case 'u' -> {
        if (at + 4 > text.length()) {
          throw error("a short \\u escape");
        }
        at += 4;
        yield (char) Integer.parseInt(text.substring(at - 4, at), 16);
      }
      default -> throw error("an unknown escape \\" + c);
    };
  }

  private Object number() {
    int start = at;
    while (at < text.length() && "+-0123456789.eE".indexOf(text.charAt(at)) >= 0) {
      at++;
    }
    String digits = text.substring(start, at);
    if (!digits.matches("-?(0|[1-9][0-9]*)(\\.[0-9]+)?([eE][+-]?[0-9]+)?")) {
      throw error("not a value: '" + digits + "'");
    }
    return digits.matches("-?[0-9]+") ? (Object) Long.valueOf(digits) : Double.valueOf(digits);
  }

  private Object literal(String word, Object value) {
    if (!text.startsWith(word, at)) {
      throw error("not a value");
    }
    at += word.length();
    return value;
  }

  private void expect(char c) {
    if (skipWhitespace() != c) {
      throw error("expected '" + c + "'");
    }
    at++;
  }

  private char next() {
    if (at == text.length()) {
      throw error("end of input in a string");
    }
    return text.charAt(at++);
  }

  /** Skips whitespace; the character after it (0 at the end). */
  private char skipWhitespace() {
    while (at < text.length() && " \t\r\n".indexOf(text.charAt(at)) >= 0) {
      at++;
    }
    return at < text.length() ? text.charAt(at) : 0;
  }

  private IllegalArgumentException error(String what) {
    return new IllegalArgumentException("JSON: " + what + " at offset " + at);
  }

  /** {@code value} (maps, iterables, strings, numbers, booleans, null) as one line of JSON. */
  public static String write(Object value) {
    StringBuilder out = new StringBuilder();
    write(value, out);
    return out.toString();
  }

  private static void write(Object value, StringBuilder out) {
    switch (value) {
      case null -> out.append("null");
      case String s -> quote(s, out);
      case Long number -> out.append(number);
      case Boolean bool -> out.append(bool);
      case Map<?, ?> map -> {
        out.append('{');
        String comma = "";
        for (Map.Entry<?, ?> member : map.entrySet()) {
          out.append(comma);
          quote((String) member.getKey(), out);
          out.append(':');
          write(member.getValue(), out);
          comma = ",";
        }
        out.append('}');
      }
      case Iterable<?> elements -> {
        out.append('[');
        String comma = "";
        for (Object element : elements) {
          out.append(comma);
          write(element, out);
          comma = ",";
        }
        out.append(']');
      }
      default -> throw new IllegalArgumentException("no JSON for a " + value.getClass());
    }
  }

  private static void quote(String s, StringBuilder out) {
    out.append('"');
    for (char c : s.toCharArray()) {
      switch (c) {
        case '"' -> out.append("\\\"");
        case '\\' -> out.append("\\\\");
        case '\n' -> out.append("\\n");
        default -> {
          if (c < 0x20) {
            out.append(String.format("\\u%04x", (int) c));
          } else {
            out.append(c);
          }
        }
      }
    }
    out.append('"');
  }
}
