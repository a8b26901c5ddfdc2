"use strict";
// thm for Node.js (adr/0014): who answers a message in a multi-agent chat, and whether an
// agent's reply may start exactly one more agent turn. The operations are the core's own,
// called through Node-API; values are the SPEC §6 wire forms as plain frozen objects.
const addon = require("./addon.cjs");
const { dispatchMentionAsync } = require("./async.cjs");
const errors = require("./errors.cjs");
const make = require("./make.cjs");

addon.setup(errors.fromCase, errors.QueueError, make.compileObjectMaker, make.freezeArray);

module.exports = Object.freeze({
  version: addon.version,
  WIRE_TYPES: addon.WIRE_TYPES,
  QUEUE_ERROR_KINDS: addon.QUEUE_ERROR_KINDS,
  // chat identity (SPEC §1.3)
  isGeneralChat: addon.isGeneralChat,
  sameConversation: addon.sameConversation,
  dispatchConversation: addon.dispatchConversation,
  // prepared teams (adr/0016)
  prepareTeam: addon.prepareTeam,
  // mentions (SPEC §1.5)
  resolveMentions: addon.resolveMentions,
  directResponder: addon.directResponder,
  mentionedMembers: addon.mentionedMembers,
  // desks (SPEC §1.2)
  validateDesks: addon.validateDesks,
  deskMembers: addon.deskMembers,
  // the responder ladder and selection (SPEC §2)
  responderPlan: addon.responderPlan,
  acceptSelection: addon.acceptSelection,
  acceptEvaluation: addon.acceptEvaluation,
  settleSelection: addon.settleSelection,
  // dispatch (SPEC §3, §4)
  mentionDispatch: addon.mentionDispatch,
  dispatchMention: addon.dispatchMention,
  dispatchMentionAsync,
  mayDispatch: addon.mayDispatch,
  turnKey: addon.turnKey,
  // the team briefing (SPEC §7)
  teamBriefing: addon.teamBriefing,
  briefingText: addon.briefingText,
  offersDispatch: addon.offersDispatch,
  // wording (SPEC §5)
  display: addon.display,
  // decision traces (SPEC §8)
  agentSentences: addon.agentSentences,
  operatorLine: addon.operatorLine,
  // wire forms (SPEC §6)
  fromJSON: addon.fromJSON,
  parse: addon.parse,
  stringify: addon.stringify,
  // errors
  ThmError: errors.ThmError,
  DecodeError: errors.DecodeError,
  RosterError: errors.RosterError,
  DeskError: errors.DeskError,
  ResponderError: errors.ResponderError,
  QueueError: errors.QueueError,
});
