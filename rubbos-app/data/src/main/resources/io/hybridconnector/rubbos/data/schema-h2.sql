-- RUBBoS schema for the embedded H2 database: the same tables and columns as schema-mariadb.sql.
-- H2 has no unsigned integers and no prefix indexes: INTEGER and a full-column index stand in for them.
-- Statements are separated by lines holding a single ';'.
DROP ALL OBJECTS
;
CREATE TABLE categories (
  id INTEGER NOT NULL PRIMARY KEY,
  name VARCHAR(50)
)
;
CREATE TABLE users (
  id INTEGER NOT NULL AUTO_INCREMENT PRIMARY KEY,
  firstname VARCHAR(20),
  lastname VARCHAR(20),
  nickname VARCHAR(20) NOT NULL UNIQUE,
  password VARCHAR(20) NOT NULL,
  email VARCHAR(50) NOT NULL,
  rating INTEGER,
  access INTEGER,
  creation_date TIMESTAMP
)
;
CREATE INDEX users_auth ON users (nickname, password)
;
CREATE TABLE stories (
  id INTEGER NOT NULL AUTO_INCREMENT PRIMARY KEY,
  title VARCHAR(100),
  body VARCHAR(65535),
  date TIMESTAMP,
  writer INTEGER NOT NULL,
  category INTEGER NOT NULL
)
;
CREATE INDEX stories_writer ON stories (writer)
;
CREATE INDEX stories_category ON stories (category, date)
;
CREATE INDEX stories_title ON stories (title)
;
CREATE INDEX stories_date ON stories (date)
;
CREATE TABLE old_stories (
  id INTEGER NOT NULL AUTO_INCREMENT PRIMARY KEY,
  title VARCHAR(100),
  body VARCHAR(65535),
  date TIMESTAMP,
  writer INTEGER NOT NULL,
  category INTEGER NOT NULL
)
;
CREATE INDEX old_stories_writer ON old_stories (writer)
;
CREATE INDEX old_stories_category ON old_stories (category, date)
;
CREATE INDEX old_stories_title ON old_stories (title)
;
CREATE INDEX old_stories_date ON old_stories (date)
;
CREATE TABLE submissions (
  id INTEGER NOT NULL AUTO_INCREMENT PRIMARY KEY,
  title VARCHAR(100),
  body VARCHAR(65535),
  date TIMESTAMP,
  writer INTEGER,
  category INTEGER NOT NULL
)
;
CREATE INDEX submissions_date ON submissions (date)
;
CREATE TABLE comments (
  id INTEGER NOT NULL AUTO_INCREMENT PRIMARY KEY,
  writer INTEGER,
  story_id INTEGER NOT NULL,
  parent INTEGER,
  childs INTEGER,
  rating INTEGER,
  date TIMESTAMP,
  subject VARCHAR(100),
  comment VARCHAR(65535)
)
;
CREATE INDEX comments_story ON comments (story_id)
;
CREATE INDEX comments_subject ON comments (subject)
;
CREATE INDEX comments_parent ON comments (parent)
;
CREATE TABLE old_comments (
  id INTEGER NOT NULL AUTO_INCREMENT PRIMARY KEY,
  writer INTEGER,
  story_id INTEGER NOT NULL,
  parent INTEGER,
  childs INTEGER,
  rating INTEGER,
  date TIMESTAMP,
  subject VARCHAR(100),
  comment VARCHAR(65535)
)
;
CREATE INDEX old_comments_story ON old_comments (story_id)
;
CREATE INDEX old_comments_subject ON old_comments (subject)
;
CREATE INDEX old_comments_parent ON old_comments (parent)
;
CREATE TABLE moderator_log (
  id INTEGER NOT NULL AUTO_INCREMENT PRIMARY KEY,
  moderator_id INTEGER NOT NULL,
  comment_id INTEGER NOT NULL,
  rating INTEGER,
  date TIMESTAMP
)
;
CREATE INDEX moderator_log_comment ON moderator_log (comment_id)
;
