// scenario.mjs — the replay server's second mode: a chat completion made up on the spot from a
// request, by rules (fixtures/scenarios.json), so that a whole formation of http members can be
// driven end to end without a model.
//
// Invariant: what a scenario answers depends only on its rules and the request (the state of
// the conversation it carries, the task, the fenced answers of a continuation, the tools
// offered) plus a per-server counter for tool-call ids; its bytes are a well-formed
// `chat.completion`, or `chat.completion.chunk` SSE events ending in `data: [DONE]`, as the
// official openai client reads them (checked by scenarios_openai.test.mjs).
//
// The state of a conversation is read from its last message:
//   task          the last message is the user's and no assistant message came before it
//   tool_results  the last message is a tool result (the model's calls were answered at once)
//   continuation  the last message is the user's and an assistant message came before it (the
//                 runtime's one message carrying the members' answers, each fenced as
//                 `<untrusted-content source=member:NAME>` … `</untrusted-content>`)
//   other         anything else (e.g. the last message is the assistant's)
// Templates fill each placeholder once, left to right; a filled-in value is never read again:
//   {{task}}          the first user message (the task as the member received it)
//   {{last}}          the last message's text
//   {{answers}}       every fenced answer of the last user message, as `NAME said: TEXT`, joined by "; "
//   {{answer.NAME}}   the fenced answer of member NAME in the last user message ("" if none)
//   {{tool_results}}  the texts of the trailing tool messages, joined by " | "
//   {{callee}}        the first name call-member's `member` enum offers ("" when not offered)
//   {{callees}}       every such name, joined by ", "
//   {{tools}}         the names of the tools offered, joined by ", "

export const fenceOpening = '<untrusted-content source=';
const fenceRe = /<untrusted-content source=member:([^>\n]*)>\n([\s\S]*?)<\/untrusted-content>/g;

function textOf(message) {
  if (!message) return '';
  const c = message.content;
  if (typeof c === 'string') return c;
  if (Array.isArray(c)) return c.map((p) => (p && typeof p.text === 'string' ? p.text : '')).join('');
  return '';
}

function toolNames(tools) {
  if (!Array.isArray(tools)) return [];
  return tools.map((t) => t?.function?.name).filter((n) => typeof n === 'string');
}

function calleesOf(tools) {
  if (!Array.isArray(tools)) return [];
  const call = tools.find((t) => t?.function?.name === 'call-member');
  const names = call?.function?.parameters?.properties?.member?.enum;
  return Array.isArray(names) ? names.filter((n) => typeof n === 'string') : [];
}

// The fenced answers of a continuation, in order: [{member, text}] (the text without the
// newline the fence adds before its closing line).
export function fencedAnswers(text) {
  const out = [];
  for (const m of text.matchAll(fenceRe)) out.push({ member: m[1], text: m[2].replace(/\n$/, '') });
  return out;
}

// What a request says about its conversation.
export function conversationOf(body) {
  const messages = Array.isArray(body?.messages) ? body.messages : [];
  const last = messages[messages.length - 1];
  const firstUser = messages.find((m) => m?.role === 'user');
  let state = 'other';
  if (last?.role === 'tool') state = 'tool_results';
  else if (last?.role === 'user')
    state = messages.slice(0, -1).some((m) => m?.role === 'assistant') ? 'continuation' : 'task';
  const toolResults = [];
  for (let i = messages.length - 1; i >= 0 && messages[i]?.role === 'tool'; --i) toolResults.unshift(textOf(messages[i]));
  let lastUser;
  for (let i = messages.length - 1; i >= 0 && !lastUser; --i) if (messages[i]?.role === 'user') lastUser = messages[i];
  return {
    state,
    task: textOf(firstUser),
    last: textOf(last),
    answers: state === 'continuation' ? fencedAnswers(textOf(lastUser)) : [],
    toolResults,
    callees: calleesOf(body?.tools),
    tools: toolNames(body?.tools),
  };
}

export function fill(template, conv) {
  if (typeof template !== 'string') return '';
  return template.replace(/\{\{(task|last|answers|tool_results|callee|callees|tools|answer\.[A-Za-z0-9_-]+)\}\}/g, (_, key) => {
    switch (key) {
      case 'task': return conv.task;
      case 'last': return conv.last;
      case 'answers': return conv.answers.map((a) => `${a.member} said: ${a.text}`).join('; ');
      case 'tool_results': return conv.toolResults.join(' | ');
      case 'callee': return conv.callees[0] ?? '';
      case 'callees': return conv.callees.join(', ');
      case 'tools': return conv.tools.join(', ');
      default: {
        const name = key.slice('answer.'.length);
        return conv.answers.find((a) => a.member === name)?.text ?? '';
      }
    }
  });
}

// The first rule that fits the conversation, or undefined. A rule fits when its `when` (one
// state, a list of states, or "any"/absent) holds the conversation's state, its `match` (an
// ECMAScript regular expression) is found in the task, and its `last_match` in the last message.
export function pickRule(rules, conv) {
  for (const r of rules) {
    const when = r.when ?? 'any';
    const states = Array.isArray(when) ? when : [when];
    if (!states.includes('any') && !states.includes(conv.state)) continue;
    if (r.match !== undefined && !new RegExp(r.match).test(conv.task)) continue;
    if (r.last_match !== undefined && !new RegExp(r.last_match).test(conv.last)) continue;
    return r;
  }
  return undefined;
}

// Checks a scenarios file when the server starts; throws with the path of what is wrong.
export function checkScenarios(scenarios, fixtureNames) {
  const states = ['any', 'task', 'tool_results', 'continuation', 'other'];
  for (const [name, s] of Object.entries(scenarios)) {
    if (fixtureNames.includes(name)) throw new Error(`scenarios.${name}: the name is a fixture entry's too`);
    if (s.use !== undefined && !scenarios[s.use]) throw new Error(`scenarios.${name}.use: no scenario '${s.use}'`);
    if (s.use !== undefined && scenarios[s.use].use !== undefined)
      throw new Error(`scenarios.${name}.use: '${s.use}' borrows itself (one level only)`);
    (s.rules ?? []).forEach((r, i) => {
      const at = `scenarios.${name}.rules[${i}]`;
      const when = Array.isArray(r.when) ? r.when : [r.when ?? 'any'];
      for (const w of when) if (!states.includes(w)) throw new Error(`${at}.when: '${w}' is not one of ${states.join(', ')}`);
      for (const k of ['match', 'last_match']) if (r[k] !== undefined) new RegExp(r[k]);
      if (r.say === undefined && r.calls === undefined && r.fault === undefined)
        throw new Error(`${at}: needs say, calls or fault`);
      if (r.usage !== undefined) {
        const counts = ['prompt_tokens', 'completion_tokens', 'reasoning_tokens'];
        for (const [k, v] of Object.entries(r.usage))
          if (!counts.includes(k) || !Number.isInteger(v) || v < 0)
            throw new Error(`${at}.usage.${k}: one of ${counts.join(', ')}, each a whole number ≥ 0`);
        if (r.usage.prompt_tokens === undefined || r.usage.completion_tokens === undefined)
          throw new Error(`${at}.usage: needs prompt_tokens and completion_tokens`);
      }
      for (const [j, c] of (r.calls ?? []).entries()) {
        const kinds = ['member', 'end', 'tool'].filter((k) => c[k] !== undefined);
        if (kinds.length !== 1) throw new Error(`${at}.calls[${j}]: one of member (with task), end, tool`);
      }
    });
  }
}

let nextCallId = 1;

// The assistant message a rule makes: {content, tool_calls: [{id, name, arguments}], finish_reason}.
export function assistantMessage(rule, conv) {
  const tool_calls = (rule.calls ?? []).map((c) => {
    const id = `call_replay_${String(nextCallId++).padStart(4, '0')}`;
    if (c.member !== undefined)
      return { id, name: 'call-member', arguments: JSON.stringify({ member: fill(c.member, conv), task: fill(c.task ?? '', conv) }) };
    if (c.end !== undefined) return { id, name: 'end-without-answer', arguments: JSON.stringify({ reason: fill(c.end, conv) }) };
    if (typeof c.arguments === 'string') return { id, name: c.tool, arguments: c.arguments }; // raw, even broken
    const args = Object.fromEntries(
      Object.entries(c.arguments ?? {}).map(([k, v]) => [k, typeof v === 'string' ? fill(v, conv) : v]));
    return { id, name: c.tool, arguments: JSON.stringify(args) };
  });
  const content = rule.say !== undefined ? fill(rule.say, conv) : '';
  const finish_reason = rule.finish_reason ?? (tool_calls.length ? 'tool_calls' : 'stop');
  return { content, tool_calls, finish_reason, usage: rule.usage };
}

// The usage a completion reports: the rule's fixed counts (with completion_tokens_details when it
// names reasoning_tokens), else estimated from the lengths (about 4 characters a token).
function usageOf(body, msg) {
  if (msg.usage !== undefined) {
    const { prompt_tokens, completion_tokens, reasoning_tokens } = msg.usage;
    const u = { prompt_tokens, completion_tokens, total_tokens: prompt_tokens + completion_tokens };
    if (reasoning_tokens !== undefined) u.completion_tokens_details = { reasoning_tokens };
    return u;
  }
  const prompt = Math.ceil(JSON.stringify(body?.messages ?? []).length / 4);
  const completion = Math.ceil((msg.content.length + msg.tool_calls.reduce((n, c) => n + c.arguments.length, 0)) / 4);
  return { prompt_tokens: prompt, completion_tokens: completion, total_tokens: prompt + completion };
}

let nextCompletion = 1;
const created = () => Math.floor(Date.now() / 1000);

// A non-streamed chat completion's bytes.
export function completionBody(model, body, msg) {
  const message = { role: 'assistant', content: msg.content === '' && msg.tool_calls.length ? null : msg.content, refusal: null };
  if (msg.tool_calls.length)
    message.tool_calls = msg.tool_calls.map((c) => ({ id: c.id, type: 'function', function: { name: c.name, arguments: c.arguments } }));
  return Buffer.from(JSON.stringify({
    id: `chatcmpl-replay-${nextCompletion++}`,
    object: 'chat.completion',
    created: created(),
    model,
    choices: [{ index: 0, message, logprobs: null, finish_reason: msg.finish_reason }],
    usage: usageOf(body, msg),
  }));
}

// Up to `n` pieces of `s`, cut at spaces where it can be (so a text arrives in several deltas).
function pieces(s, n) {
  if (s.length === 0) return [];
  const out = [];
  let at = 0;
  for (let k = n; k > 1 && at < s.length; --k) {
    let cut = at + Math.ceil((s.length - at) / k);
    const space = s.indexOf(' ', cut);
    cut = space >= 0 && space < s.length - 1 ? space + 1 : cut;
    if (cut >= s.length) break;
    out.push(s.slice(at, cut));
    at = cut;
  }
  out.push(s.slice(at));
  return out;
}

// A streamed chat completion: its SSE events, each with its closing blank line. The role
// first, the text in up to three deltas, each tool call by index (id and name first, then its
// arguments in two fragments), the finish_reason, the usage chunk (empty choices) when the
// request asked for it, then `data: [DONE]`.
export function completionEvents(model, body, msg) {
  const id = `chatcmpl-replay-${nextCompletion++}`;
  const at = created();
  const chunk = (choices, extra = {}) =>
    Buffer.from(`data: ${JSON.stringify({ id, object: 'chat.completion.chunk', created: at, model, system_fingerprint: null, choices, ...extra })}\n\n`);
  const delta = (d, finish_reason = null) => [{ index: 0, delta: d, logprobs: null, finish_reason }];
  const events = [chunk(delta({ role: 'assistant', content: '' }))];
  for (const p of pieces(msg.content, 3)) events.push(chunk(delta({ content: p })));
  msg.tool_calls.forEach((c, index) => {
    events.push(chunk(delta({ tool_calls: [{ index, id: c.id, type: 'function', function: { name: c.name, arguments: '' } }] })));
    for (const p of pieces(c.arguments, 2)) events.push(chunk(delta({ tool_calls: [{ index, function: { arguments: p } }] })));
  });
  events.push(chunk(delta({}, msg.finish_reason)));
  if (body?.stream_options?.include_usage === true) events.push(chunk([], { usage: usageOf(body, msg) }));
  events.push(Buffer.from('data: [DONE]\n\n'));
  return events;
}
