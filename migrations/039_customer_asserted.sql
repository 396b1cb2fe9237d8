-- Customer-asserted claims (docs/pipeline.md, "Grounding"): a draft's commitment that rests on
-- nothing but the customer's own mail is stored as `customer_asserted`, longer than the 16
-- characters the verdict column held.
ALTER TABLE draft_claims MODIFY verdict VARCHAR(32) NOT NULL;
