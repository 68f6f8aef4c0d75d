INSERT INTO users (name) VALUES ('ada'), ('grace'), ('edsger');
