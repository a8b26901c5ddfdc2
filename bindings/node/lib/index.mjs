// thm as an ES module: the CommonJS module's exports, so both ways in share one addon and
// one set of error classes (`instanceof` agrees whichever a host uses).
import thm from "./index.cjs";

export default thm;
export const {
  version,
  WIRE_TYPES,
  QUEUE_ERROR_KINDS,
  isGeneralChat,
  sameConversation,
  dispatchConversation,
  prepareTeam,
  resolveMentions,
  directResponder,
  mentionedMembers,
  validateDesks,
  deskMembers,
  responderPlan,
  acceptSelection,
  acceptEvaluation,
  settleSelection,
  mentionDispatch,
  dispatchMention,
  mayDispatch,
  teamBriefing,
  briefingText,
  offersDispatch,
  display,
  fromJSON,
  parse,
  stringify,
  ThmError,
  DecodeError,
  RosterError,
  DeskError,
  ResponderError,
  QueueError,
} = thm;
