-- test/bench/tpch/schema.sql — the eight TPC-H tables (TPC-H specification,
-- clause 1.4), with their primary keys, for bench-tpch.sh.  Data types as
-- the specification has them: identifiers integer (bigint for the order
-- keys, which are sparse), money numeric(15,2), dates date, fixed-length
-- text char(n), variable text varchar(n).  Beside the primary keys, three
-- indexes on foreign-key columns (clause 1.5.7 allows indexes on primary
-- and foreign keys): without lineitem (l_partkey, l_suppkey) PostgreSQL runs
-- Q17's and Q20's correlated subqueries as a scan of lineitem per row.
-- Loaded by generate.sql; tables are created empty (run it in a fresh database).

CREATE TABLE region (
	r_regionkey integer     NOT NULL,
	r_name      char(25)    NOT NULL,
	r_comment   varchar(152),
	PRIMARY KEY (r_regionkey)
);

CREATE TABLE nation (
	n_nationkey integer     NOT NULL,
	n_name      char(25)    NOT NULL,
	n_regionkey integer     NOT NULL,   -- region
	n_comment   varchar(152),
	PRIMARY KEY (n_nationkey)
);

CREATE TABLE supplier (
	s_suppkey   integer       NOT NULL,
	s_name      char(25)      NOT NULL,
	s_address   varchar(40)   NOT NULL,
	s_nationkey integer       NOT NULL, -- nation
	s_phone     char(15)      NOT NULL,
	s_acctbal   numeric(15,2) NOT NULL,
	s_comment   varchar(101)  NOT NULL,
	PRIMARY KEY (s_suppkey)
);

CREATE TABLE customer (
	c_custkey    integer       NOT NULL,
	c_name       varchar(25)   NOT NULL,
	c_address    varchar(40)   NOT NULL,
	c_nationkey  integer       NOT NULL, -- nation
	c_phone      char(15)      NOT NULL,
	c_acctbal    numeric(15,2) NOT NULL,
	c_mktsegment char(10)      NOT NULL,
	c_comment    varchar(117)  NOT NULL,
	PRIMARY KEY (c_custkey)
);

CREATE TABLE part (
	p_partkey     integer       NOT NULL,
	p_name        varchar(55)   NOT NULL,
	p_mfgr        char(25)      NOT NULL,
	p_brand       char(10)      NOT NULL,
	p_type        varchar(25)   NOT NULL,
	p_size        integer       NOT NULL,
	p_container   char(10)      NOT NULL,
	p_retailprice numeric(15,2) NOT NULL,
	p_comment     varchar(23)   NOT NULL,
	PRIMARY KEY (p_partkey)
);

CREATE TABLE partsupp (
	ps_partkey    integer       NOT NULL, -- part
	ps_suppkey    integer       NOT NULL, -- supplier
	ps_availqty   integer       NOT NULL,
	ps_supplycost numeric(15,2) NOT NULL,
	ps_comment    varchar(199)  NOT NULL,
	PRIMARY KEY (ps_partkey, ps_suppkey)
);

CREATE TABLE orders (
	o_orderkey      bigint        NOT NULL,
	o_custkey       integer       NOT NULL, -- customer
	o_orderstatus   char(1)       NOT NULL,
	o_totalprice    numeric(15,2) NOT NULL,
	o_orderdate     date          NOT NULL,
	o_orderpriority char(15)      NOT NULL,
	o_clerk         char(15)      NOT NULL,
	o_shippriority  integer       NOT NULL,
	o_comment       varchar(79)   NOT NULL,
	PRIMARY KEY (o_orderkey)
);

CREATE TABLE lineitem (
	l_orderkey      bigint        NOT NULL, -- orders
	l_partkey       integer       NOT NULL, -- part, partsupp
	l_suppkey       integer       NOT NULL, -- supplier, partsupp
	l_linenumber    integer       NOT NULL,
	l_quantity      numeric(15,2) NOT NULL,
	l_extendedprice numeric(15,2) NOT NULL,
	l_discount      numeric(15,2) NOT NULL,
	l_tax           numeric(15,2) NOT NULL,
	l_returnflag    char(1)       NOT NULL,
	l_linestatus    char(1)       NOT NULL,
	l_shipdate      date          NOT NULL,
	l_commitdate    date          NOT NULL,
	l_receiptdate   date          NOT NULL,
	l_shipinstruct  char(25)      NOT NULL,
	l_shipmode      char(10)      NOT NULL,
	l_comment       varchar(44)   NOT NULL,
	PRIMARY KEY (l_orderkey, l_linenumber)
);

-- Foreign-key indexes (see the header).
CREATE INDEX lineitem_part_supp ON lineitem (l_partkey, l_suppkey);
CREATE INDEX orders_cust ON orders (o_custkey);
CREATE INDEX partsupp_supp ON partsupp (ps_suppkey);
