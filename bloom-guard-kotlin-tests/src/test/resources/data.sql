INSERT INTO users (name) VALUES ('ada'), ('grace'), ('edsger'), ('niklaus'), ('donald'), ('tony'), ('leslie'),
    ('frances'), ('margaret'), ('radia');
