// URI references for "$id" and "$ref": RFC 3986 resolution of a reference
// against a base, and percent-decoding of fragments. Only what JSON Schema
// needs: no normalisation beyond dot-segment removal.
#include <optional>
#include <string>
#include <string_view>

#include "schema/internal/program.hpp"

namespace agui::schema_detail {
namespace {

struct UriParts {
  std::optional<std::string_view> scheme, authority, query, fragment;
  std::string_view path;
};

// RFC 3986 appendix B: ^(([^:/?#]+):)?(//([^/?#]*))?([^?#]*)(\?([^#]*))?(#(.*))?
UriParts parse(std::string_view uri) {
  UriParts parts;
  std::size_t pos = 0;
  const std::size_t colon = uri.find_first_of(":/?#");
  if (colon != std::string_view::npos && colon > 0 && uri[colon] == ':') {
    parts.scheme = uri.substr(0, colon);
    pos = colon + 1;
  }
  if (uri.substr(pos, 2) == "//") {
    const std::size_t end = uri.find_first_of("/?#", pos + 2);
    const std::size_t stop = end == std::string_view::npos ? uri.size() : end;
    parts.authority = uri.substr(pos + 2, stop - pos - 2);
    pos = stop;
  }
  std::size_t end = uri.find_first_of("?#", pos);
  if (end == std::string_view::npos) end = uri.size();
  parts.path = uri.substr(pos, end - pos);
  pos = end;
  if (pos < uri.size() && uri[pos] == '?') {
    end = uri.find('#', pos);
    if (end == std::string_view::npos) end = uri.size();
    parts.query = uri.substr(pos + 1, end - pos - 1);
    pos = end;
  }
  if (pos < uri.size() && uri[pos] == '#') parts.fragment = uri.substr(pos + 1);
  return parts;
}

// RFC 3986 section 5.2.4.
std::string remove_dot_segments(std::string_view input) {
  std::string out;
  while (!input.empty()) {
    if (input.substr(0, 3) == "../") {
      input.remove_prefix(3);
    } else if (input.substr(0, 2) == "./") {
      input.remove_prefix(2);
    } else if (input.substr(0, 3) == "/./") {
      input.remove_prefix(2);
    } else if (input == "/.") {
      input = "/";
    } else if (input.substr(0, 4) == "/../" || input == "/..") {
      input = input.size() == 3 ? std::string_view("/") : input.substr(3);
      const std::size_t slash = out.rfind('/');
      out.erase(slash == std::string::npos ? 0 : slash);
    } else if (input == "." || input == "..") {
      input = {};
    } else {
      const std::size_t next = input.find('/', input[0] == '/' ? 1 : 0);
      const std::size_t len = next == std::string_view::npos ? input.size() : next;
      out.append(input.substr(0, len));
      input.remove_prefix(len);
    }
  }
  return out;
}

std::string merge(const UriParts& base, std::string_view ref_path) {
  if (base.authority && base.path.empty()) return "/" + std::string(ref_path);
  const std::size_t slash = base.path.rfind('/');
  if (slash == std::string_view::npos) return std::string(ref_path);
  return std::string(base.path.substr(0, slash + 1)) + std::string(ref_path);
}

std::string compose(std::optional<std::string_view> scheme,
                    std::optional<std::string_view> authority, std::string_view path,
                    std::optional<std::string_view> query,
                    std::optional<std::string_view> fragment) {
  std::string out;
  if (scheme) out.append(*scheme).push_back(':');
  if (authority) out.append("//").append(*authority);
  out.append(path);
  if (query) out.append("?").append(*query);
  if (fragment) out.append("#").append(*fragment);
  return out;
}

int hex_value(char c) {
  if (c >= '0' && c <= '9') return c - '0';
  if (c >= 'a' && c <= 'f') return c - 'a' + 10;
  if (c >= 'A' && c <= 'F') return c - 'A' + 10;
  return -1;
}

}  // namespace

std::string resolve_uri(std::string_view base_uri, std::string_view reference) {
  const UriParts ref = parse(reference);
  const UriParts base = parse(base_uri);
  if (ref.scheme) {
    return compose(ref.scheme, ref.authority, remove_dot_segments(ref.path), ref.query,
                   ref.fragment);
  }
  if (ref.authority) {
    return compose(base.scheme, ref.authority, remove_dot_segments(ref.path), ref.query,
                   ref.fragment);
  }
  if (ref.path.empty()) {
    return compose(base.scheme, base.authority, base.path, ref.query ? ref.query : base.query,
                   ref.fragment);
  }
  const std::string path = ref.path.front() == '/' ? remove_dot_segments(ref.path)
                                                   : remove_dot_segments(merge(base, ref.path));
  return compose(base.scheme, base.authority, path, ref.query, ref.fragment);
}

std::pair<std::string_view, std::optional<std::string_view>> split_fragment(std::string_view uri) {
  const std::size_t hash = uri.find('#');
  if (hash == std::string_view::npos) return {uri, std::nullopt};
  return {uri.substr(0, hash), uri.substr(hash + 1)};
}

std::optional<std::string> percent_decode(std::string_view text) {
  std::string out;
  out.reserve(text.size());
  for (std::size_t i = 0; i < text.size(); ++i) {
    if (text[i] != '%') {
      out.push_back(text[i]);
      continue;
    }
    const int hi = i + 1 < text.size() ? hex_value(text[i + 1]) : -1;
    const int lo = i + 2 < text.size() ? hex_value(text[i + 2]) : -1;
    if (hi < 0 || lo < 0) return std::nullopt;
    out.push_back(static_cast<char>(hi * 16 + lo));
    i += 2;
  }
  return out;
}

}  // namespace agui::schema_detail
