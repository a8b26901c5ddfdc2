// The reference model of SPEC §1.5: mention grammar, code masking, the alias table,
// revalidation of supplied mentions, normalization, and the two consumers.
#include <algorithm>
#include <limits>

#include "thm/model/model.hpp"
#include "thm/model/unicode.hpp"

namespace thm::model {
namespace {

// ---- code masking v2 ------------------------------------------------------------------------

struct Line {
  std::size_t start = 0;
  std::size_t end = 0;    // before '\n'
  std::size_t after = 0;  // after '\n' (or the body's end)
  std::string content;    // the line without '\n' and without the '\r' right before it
};

std::vector<Line> split_lines(const std::string& body) {
  std::vector<Line> lines;
  std::size_t start = 0;
  while (start < body.size()) {
    std::size_t end = start;
    while (end < body.size() && body[end] != '\n') ++end;
    Line line;
    line.start = start;
    line.end = end;
    line.after = end < body.size() ? end + 1 : end;
    line.content = body.substr(start, end - start);
    if (end < body.size() && !line.content.empty() && line.content.back() == '\r') {
      line.content.pop_back();
    }
    lines.push_back(line);
    start = line.after;
  }
  return lines;
}

bool only_spaces_and_tabs(const std::string& text) {
  for (char c : text) {
    if (c != ' ' && c != '\t') return false;
  }
  return true;
}

// The content after 0-3 leading spaces; nothing if there are 4 or more.
std::optional<std::string> after_indent(const std::string& content) {
  std::size_t spaces = 0;
  while (spaces < content.size() && content[spaces] == ' ') ++spaces;
  if (spaces > 3) return std::nullopt;
  return content.substr(spaces);
}

std::size_t indent_columns(const std::string& content) {
  std::size_t column = 0;
  for (char c : content) {
    if (c == ' ') {
      column += 1;
    } else if (c == '\t') {
      column = (column / 4 + 1) * 4;
    } else {
      break;
    }
  }
  return column;
}

// A fence marker line: its character, run length and the text after the run.
struct Fence {
  char marker = 0;
  std::size_t run = 0;
  std::string rest;
};
std::optional<Fence> fence_of(const std::string& content) {
  const auto text = after_indent(content);
  if (!text || text->empty()) return std::nullopt;
  const char marker = (*text)[0];
  if (marker != '`' && marker != '~') return std::nullopt;
  std::size_t run = 0;
  while (run < text->size() && (*text)[run] == marker) ++run;
  if (run < 3) return std::nullopt;
  return Fence{marker, run, text->substr(run)};
}

bool is_heading(const std::string& content) {
  const auto text = after_indent(content);
  if (!text) return false;
  std::size_t hashes = 0;
  while (hashes < text->size() && (*text)[hashes] == '#') ++hashes;
  if (hashes < 1 || hashes > 6) return false;
  return hashes == text->size() || (*text)[hashes] == ' ' || (*text)[hashes] == '\t';
}

bool is_break(const std::string& content) {
  const auto text = after_indent(content);
  if (!text || text->empty()) return false;
  const char marker = (*text)[0];
  if (marker != '*' && marker != '-' && marker != '_') return false;
  int count = 0;
  for (char c : *text) {
    if (c == marker) {
      ++count;
    } else if (c != ' ' && c != '\t') {
      return false;
    }
  }
  return count >= 3;
}

bool is_underline(const std::string& content) {
  const auto text = after_indent(content);
  if (!text || text->empty()) return false;
  const char marker = (*text)[0];
  if (marker != '=' && marker != '-') return false;
  std::size_t i = 0;
  while (i < text->size() && (*text)[i] == marker) ++i;
  return only_spaces_and_tabs(text->substr(i));
}

bool is_ascii_punctuation(char c) {
  const std::string punctuation = "!\"#$%&'()*+,-./:;<=>?@[\\]^_`{|}~";
  return punctuation.find(c) != std::string::npos;
}

std::size_t backtick_run(const std::string& body, std::size_t at, std::size_t end) {
  std::size_t n = 0;
  while (at + n < end && body[at + n] == '`') ++n;
  return n;
}

// Inline code spans inside [start, end): searched forward, plainly.
void mask_spans(const std::string& body, std::size_t start, std::size_t end,
                std::vector<bool>& mask) {
  std::size_t i = start;
  while (i < end) {
    if (body[i] == '\\' && i + 1 < end && is_ascii_punctuation(body[i + 1])) {
      i += 2;
      continue;
    }
    if (body[i] != '`') {
      ++i;
      continue;
    }
    const std::size_t n = backtick_run(body, i, end);
    std::size_t j = i + n;
    std::optional<std::size_t> closer;
    while (j < end) {
      if (body[j] == '`') {
        const std::size_t m = backtick_run(body, j, end);
        if (m == n) {
          closer = j;
          break;
        }
        j += m;
      } else {
        ++j;
      }
    }
    if (!closer) {
      i += n;
      continue;
    }
    for (std::size_t k = i; k < *closer + n; ++k) mask[k] = true;
    i = *closer + n;
  }
}

// ---- the grammar
// ---------------------------------------------------------------------------------

bool opens_at(const std::string& body, std::size_t at) {
  if (at == 0) return true;
  const char before = body[at - 1];
  return before == ' ' || before == '\t' || before == '\n' || before == '\f' || before == '\r' ||
         before == '(' || before == '[' || before == '{';
}

bool terminates(long c) {
  const std::string punctuation = ",;.?!:)]}'\"";
  if (c >= 0 && c < 128 && punctuation.find(static_cast<char>(c)) != std::string::npos) return true;
  return unicode::is_white_space(c);
}

struct Token {
  bool hash = false;
  std::string alias;
  std::size_t end = 0;
};

// §1.5 mention_token at the '@' at `at`.
std::optional<Token> token_at(const std::string& body, std::size_t at) {
  if (at >= body.size() || body[at] != '@') return std::nullopt;
  Token token;
  std::size_t start = at + 1;
  if (start < body.size() && body[start] == '#') {
    token.hash = true;
    start += 1;
  }
  if (start >= body.size()) return std::nullopt;
  const unicode::Char first = unicode::char_at(body, start);
  if (!(first.code_point == '_' || unicode::is_alphanumeric(first.code_point))) return std::nullopt;
  std::size_t end = start;
  while (end < body.size()) {
    const unicode::Char c = unicode::char_at(body, end);
    if (terminates(c.code_point)) break;
    end += c.length;
  }
  token.alias = body.substr(start, end - start);
  if (token.alias.find('@') != std::string::npos) return std::nullopt;
  token.end = end;
  return token;
}

// ---- the alias table
// -------------------------------------------------------------------------------

struct Alias {
  std::string text;
  Target target;
  bool desk = false;
};

bool admissible(const std::string& alias) {
  if (alias.empty()) return false;
  const unicode::Char first = unicode::char_at(alias, 0);
  if (!(first.code_point == '_' || unicode::is_alphanumeric(first.code_point))) return false;
  for (std::size_t i = 0; i < alias.size();) {
    const unicode::Char c = unicode::char_at(alias, i);
    if (terminates(c.code_point)) return false;
    i += c.length;
  }
  return true;
}

std::string slug_of(const std::string& label) {
  std::string slug;
  bool separator = false;
  for (char c : label) {
    const bool digit = c >= '0' && c <= '9';
    const bool lower = c >= 'a' && c <= 'z';
    const bool upper = c >= 'A' && c <= 'Z';
    if (!(digit || lower || upper)) {
      separator = true;
      continue;
    }
    if (separator && !slug.empty()) slug += "_";
    separator = false;
    slug += upper ? static_cast<char>(c - 'A' + 'a') : c;
  }
  return slug;
}

std::vector<Alias> alias_table(const Roster& roster, const Desks& desks) {
  std::vector<Alias> table;
  const auto add = [&](const std::string& text, Target target, bool desk) {
    if (admissible(text)) table.push_back({text, std::move(target), desk});
  };
  for (const Member& member : roster.members) {  // 1
    if (is_active(roster, member.id)) add(member.id, {"agent", member.id}, false);
  }
  for (const Member& member : roster.members) {  // 2
    if (is_active(roster, member.id) && member.name && !unicode::trim(*member.name).empty()) {
      add(*member.name, {"agent", member.id}, false);
    }
  }
  for (const Person& person : roster.people) {  // 3
    if (!unicode::trim(person.label).empty()) add(person.label, {"person", person.id}, false);
  }
  std::vector<std::string> slugs;  // 4
  for (const Person& person : roster.people) {
    const std::string base = slug_of(person.label);
    if (base.empty()) continue;
    std::string slug = base;
    int n = 2;
    while (std::find(slugs.begin(), slugs.end(), slug) != slugs.end()) {
      slug = base + "_" + std::to_string(n);
      ++n;
    }
    slugs.push_back(slug);
    add(slug, {"person", person.id}, false);
  }
  std::vector<Desk> all = desks.declared;  // 5, 6
  all.insert(all.end(), desks.added.begin(), desks.added.end());
  for (const Desk& desk : all) add(desk.id, {"desk", desk.id}, true);
  for (const Desk& desk : all) add(desk.name, {"desk", desk.id}, true);
  for (const char* everyone : {"everyone", "channel", "here"})
    add(everyone, {"everyone", ""}, false);  // 7
  return table;
}

// §1.5 extract_at: the one target the token names, or nothing.
std::optional<Target> target_of(const Token& token, const std::vector<Alias>& table) {
  const std::string wanted = unicode::to_lower(token.alias);
  std::vector<Target> found;
  for (const Alias& alias : table) {
    if (token.hash && !alias.desk) continue;
    if (unicode::to_lower(alias.text) != wanted) continue;
    if (std::find(found.begin(), found.end(), alias.target) == found.end())
      found.push_back(alias.target);
  }
  if (found.size() != 1) return std::nullopt;
  return found[0];
}

bool target_active(const Target& target, const Roster& roster, const Desks& desks) {
  if (target.kind == "agent") return is_active(roster, target.id);
  if (target.kind == "person") {
    for (const Person& person : roster.people) {
      if (person.id == target.id) return true;
    }
    return false;
  }
  if (target.kind == "desk") {
    for (const Desk& desk : desks.declared) {
      if (desk.id == target.id) return true;
    }
    for (const Desk& desk : desks.added) {
      if (desk.id == target.id) return true;
    }
    return false;
  }
  return true;
}

bool is_char_start(const std::string& body, std::size_t at) {
  if (at == body.size()) return true;
  if (at > body.size()) return false;
  return (static_cast<unsigned char>(body[at]) & 0xC0) != 0x80;
}

}  // namespace

std::vector<bool> code_mask(const std::string& body) {
  std::vector<bool> mask(body.size(), false);
  const std::vector<Line> lines = split_lines(body);
  std::optional<Fence> fence;
  std::size_t fence_start = 0;
  bool in_paragraph = false;
  std::size_t paragraph_start = 0;
  std::size_t paragraph_end = 0;
  const auto close_paragraph = [&] {
    if (in_paragraph) mask_spans(body, paragraph_start, paragraph_end, mask);
    in_paragraph = false;
  };
  for (const Line& line : lines) {
    if (fence) {  // inside a fenced block: look only for its closer
      const auto closer = fence_of(line.content);
      if (closer && closer->marker == fence->marker && closer->run >= fence->run &&
          only_spaces_and_tabs(closer->rest)) {
        for (std::size_t k = fence_start; k < line.after; ++k) mask[k] = true;
        fence.reset();
      }
      continue;
    }
    if (only_spaces_and_tabs(line.content)) {  // a blank line
      close_paragraph();
      continue;
    }
    const auto opener = fence_of(line.content);
    if (opener && (opener->marker == '~' || opener->rest.find('`') == std::string::npos)) {
      close_paragraph();
      fence = opener;
      fence_start = line.start;
      continue;
    }
    if (indent_columns(line.content) >= 4) {
      if (in_paragraph) {
        paragraph_end = line.end;
      } else {
        for (std::size_t k = line.start; k < line.after; ++k) mask[k] = true;
      }
      continue;
    }
    if (is_heading(line.content)) {
      close_paragraph();
      mask_spans(body, line.start, line.end, mask);
      continue;
    }
    if (in_paragraph && is_underline(line.content)) {
      close_paragraph();
      continue;
    }
    if (is_break(line.content)) {
      close_paragraph();
      continue;
    }
    if (!in_paragraph) {
      in_paragraph = true;
      paragraph_start = line.start;
    }
    paragraph_end = line.end;
  }
  if (fence) {
    for (std::size_t k = fence_start; k < body.size(); ++k) mask[k] = true;
  }
  close_paragraph();
  return mask;
}

// §1.5 resolve pipeline.
std::vector<Mention> resolve_mentions(const std::string& body,
                                      const std::optional<std::vector<Mention>>& supplied,
                                      const Author& author, const Roster& roster,
                                      const Desks& desks) {
  if (validate_roster(roster) || validate_desks(desks)) return {};  // 1
  const std::vector<Alias> table = alias_table(roster, desks);      // 2
  const std::vector<bool> mask = code_mask(body);
  std::vector<Mention> found;
  if (!supplied) {  // 3, extraction
    for (std::size_t at = 0; at < body.size(); ++at) {
      if (body[at] != '@' || mask[at] || !opens_at(body, at)) continue;
      const auto token = token_at(body, at);
      if (!token) continue;
      const auto target = target_of(*token, table);
      if (!target) continue;
      found.push_back({*target, body.substr(at, token->end - at), at, false});
    }
  } else {  // 3, revalidation
    for (const Mention& mention : *supplied) {
      const std::size_t offset = mention.offset;
      const std::size_t length = mention.text.size();
      if (offset > std::numeric_limits<std::size_t>::max() - length) continue;
      const std::size_t end = offset + length;
      if (end > body.size() || !is_char_start(body, offset) || !is_char_start(body, end)) continue;
      if (body.compare(offset, length, mention.text) != 0) continue;
      if (offset >= body.size() || mask[offset] || !opens_at(body, offset)) continue;
      const auto token = token_at(body, offset);
      if (!token || token->end != end) continue;
      Mention kept = mention;
      const auto target = target_of(*token, table);
      if (!target || !(*target == mention.target) ||
          !target_active(mention.target, roster, desks)) {
        kept.quiet = true;
      }
      found.push_back(kept);
    }
  }
  // 4. normalize
  std::stable_sort(found.begin(), found.end(),
                   [](const Mention& a, const Mention& b) { return a.offset < b.offset; });
  std::vector<Mention> kept;
  std::vector<std::size_t> kept_offsets;
  std::vector<Target> seen;
  int pinging = 0;
  for (Mention mention : found) {
    if (std::find(kept_offsets.begin(), kept_offsets.end(), mention.offset) != kept_offsets.end())
      continue;
    const bool self = (author.kind == "agent" && mention.target.kind == "agent" &&
                       mention.target.id == author.id) ||
                      (author.kind == "person" && mention.target.kind == "person" &&
                       mention.target.id == author.id);
    if (self) continue;
    kept_offsets.push_back(mention.offset);
    if (std::find(seen.begin(), seen.end(), mention.target) != seen.end()) {
      mention.quiet = true;
    } else {
      seen.push_back(mention.target);
    }
    if (!mention.quiet) {
      if (pinging == 50) {
        mention.quiet = true;
      } else {
        ++pinging;
      }
    }
    kept.push_back(mention);
  }
  return kept;
}

// §1.5 consumers: direct_responder.
std::optional<std::string> direct_responder(const std::vector<Mention>& mentions,
                                            const Roster& roster) {
  if (validate_roster(roster)) return std::nullopt;
  std::vector<Mention> sorted = mentions;
  std::stable_sort(sorted.begin(), sorted.end(),
                   [](const Mention& a, const Mention& b) { return a.offset < b.offset; });
  for (const Mention& mention : sorted) {
    if (!mention.quiet && mention.target.kind == "agent" && is_active(roster, mention.target.id)) {
      return mention.target.id;
    }
  }
  return std::nullopt;
}

// §1.5 consumers: mentioned_members.
std::vector<std::string> mentioned_members(const std::vector<Mention>& mentions,
                                           const std::optional<std::string>& addressed_desk,
                                           const std::optional<std::string>& responder,
                                           const Roster& roster, const Desks& desks) {
  if (validate_roster(roster) || validate_desks(desks)) return {};
  std::vector<Mention> sorted = mentions;
  std::stable_sort(sorted.begin(), sorted.end(),
                   [](const Mention& a, const Mention& b) { return a.offset < b.offset; });
  std::vector<std::string> members;
  const auto add = [&](const std::string& id) {
    if (responder && *responder == id) return;
    if (!is_active(roster, id)) return;
    if (std::find(members.begin(), members.end(), id) == members.end()) members.push_back(id);
  };
  const auto add_desk = [&](const std::string& identity) {
    const auto effective = desk_members(desks, identity);
    if (effective.value) {
      for (const std::string& id : *effective.value) add(id);
    }
  };
  for (const Mention& mention : sorted) {
    if (mention.target.kind == "agent") add(mention.target.id);
    if (mention.target.kind == "desk") add_desk(mention.target.id);
    if (mention.target.kind == "everyone") {
      if (addressed_desk && !is_general_chat(addressed_desk)) {
        add_desk(*addressed_desk);
      } else {
        for (const Member& member : roster.members) add(member.id);
      }
    }
  }
  return members;
}

}  // namespace thm::model
