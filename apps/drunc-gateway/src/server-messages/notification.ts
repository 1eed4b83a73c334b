/**
 * send_msg's payload: drunc's ProcessManagerDriver packs `GenericNotificationMessage{message}`
 * (package dunedaq.druncschema.process_manager) into `Request.data`, or sends no data when it
 * has no message. An Any of another type, or bytes that do not decode as one, is refused with
 * the reason.
 */
import type * as protobuf from 'protobufjs';
import type { AnyMessage } from '../wire/drunc-messages';
import { DRUNC_PACKAGE, DRUNC_PROTO, loadRoot } from '../wire/proto-files';

export const NOTIFICATION_TYPE = `${DRUNC_PACKAGE}.GenericNotificationMessage`;
const TYPE_URL = `type.googleapis.com/${NOTIFICATION_TYPE}`;

export type Notification = { ok: true; message: string } | { ok: false; reason: string };

export class NotificationReader {
  private readonly type: protobuf.Type = loadRoot([DRUNC_PROTO]).lookupType(NOTIFICATION_TYPE);

  /** The message of `data`; no data (or an empty Any) is no message, as drunc's driver sends it. */
  read(data: AnyMessage | null | undefined): Notification {
    if (!data || (!data.type_url && data.value.length === 0)) return { ok: true, message: '' };
    const named = data.type_url.slice(data.type_url.lastIndexOf('/') + 1);
    if (named !== NOTIFICATION_TYPE) {
      const got = data.type_url ? `an Any of type "${data.type_url}"` : 'an Any with no type';
      return {
        ok: false,
        reason: `send_msg takes an Any of type ${TYPE_URL}, got ${got} (${data.value.length} bytes)`,
      };
    }
    try {
      const decoded = this.type.toObject(this.type.decode(data.value), { defaults: true }) as {
        message: string;
      };
      return { ok: true, message: decoded.message };
    } catch (error) {
      return {
        ok: false,
        reason: `${data.value.length} bytes that do not decode as a ${NOTIFICATION_TYPE} (${(error as Error).message})`,
      };
    }
  }

  /** `message` as drunc's driver packs it (tests). */
  pack(message: string): AnyMessage {
    return {
      type_url: TYPE_URL,
      value: Buffer.from(this.type.encode(this.type.fromObject({ message })).finish()),
    };
  }
}
