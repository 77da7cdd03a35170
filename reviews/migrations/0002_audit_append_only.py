from django.db import migrations

# The audit log is append-only in the database itself, not just by convention in Python:
# any UPDATE or DELETE of a row raises. (TRUNCATE is a table-level operation outside the
# app's code paths; test-suite flushes rely on it.)
FORWARD = """
CREATE OR REPLACE FUNCTION reviews_auditevent_refuse_change() RETURNS trigger AS $$
BEGIN
    RAISE EXCEPTION 'audit events are append-only: % refused on reviews_auditevent', TG_OP
        USING ERRCODE = 'insufficient_privilege';
END;
$$ LANGUAGE plpgsql;

CREATE TRIGGER reviews_auditevent_append_only
    BEFORE UPDATE OR DELETE ON reviews_auditevent
    FOR EACH ROW EXECUTE FUNCTION reviews_auditevent_refuse_change();
"""

REVERSE = """
DROP TRIGGER IF EXISTS reviews_auditevent_append_only ON reviews_auditevent;
DROP FUNCTION IF EXISTS reviews_auditevent_refuse_change();
"""


class Migration(migrations.Migration):
    dependencies = [("reviews", "0001_initial")]
    operations = [migrations.RunSQL(FORWARD, REVERSE)]
